//! The fuzz campaigns' code as plain tests: the committed corpora through every target, the
//! committed crash inputs (`fuzz/regressions/<target>/<revision>.<property>`) replayed to their
//! violation and, through their recorded schedule string, to the identical trace; campaign
//! configuration errors.

use std::path::{Path, PathBuf};
use wb_checks::fuzz::{
    c11_loom, campaign_properties, campaign_revision, oracle_accounting, oracle_dontcache, oracle_slots,
    sched_execution,
};
use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::ShuttleSchedule;
use wb_models::outcome::Checker;
use wb_models::registry::{find, scenarios};

fn fuzz_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(sub)
}

/// (file name, bytes) of every file in `dir`.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

fn target_of(scenario: &str) -> String {
    format!("sched_{}", scenario.replace('-', "_"))
}

#[test]
fn differential_targets_agree_on_their_corpora_and_on_pseudo_random_inputs() {
    type Target = fn(&[u8]) -> Result<(), String>;
    let targets: [(&str, Target); 4] = [
        ("c11_loom", c11_loom),
        ("oracle_dontcache", oracle_dontcache),
        ("oracle_accounting", oracle_accounting),
        ("oracle_slots", oracle_slots),
    ];
    for (name, target) in targets {
        let corpus = files(&fuzz_dir("corpus").join(name));
        assert!(!corpus.is_empty(), "{name} has no committed seed");
        for (file, bytes) in corpus {
            target(&bytes).unwrap_or_else(|e| panic!("{name}/{file}: {e}"));
        }
        // A fixed xorshift stream: 300 inputs of up to 600 bytes, every revision byte.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in (0..300).map(|i| i * 2) {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            target(&bytes).unwrap_or_else(|e| panic!("{name} on {bytes:?}: {e}"));
        }
    }
}

#[test]
fn every_sched_corpus_runs_clean_on_the_campaign_default_revision() {
    for s in scenarios() {
        let name = s.info().name;
        let target = target_of(name);
        let revision = campaign_revision(name, None).unwrap();
        let corpus = files(&fuzz_dir("corpus").join(&target));
        assert!(!corpus.is_empty(), "{target} has no committed seed");
        for (file, bytes) in corpus.iter().chain([&("empty".to_string(), Vec::new())]) {
            let r = sched_execution(name, revision, bytes).unwrap_or_else(|e| panic!("{target}/{file}: {e}"));
            assert!(r.violations.is_empty(), "{target}/{file} on {revision}: {:?}", r.violations);
            assert!(!r.steps.is_empty());
        }
    }
}

#[test]
fn committed_crash_inputs_replay_to_their_violation_and_their_schedule_to_the_same_trace() {
    let mut seen = 0;
    for s in scenarios() {
        let name = s.info().name;
        let dir = fuzz_dir("regressions").join(target_of(name));
        if !dir.exists() {
            continue;
        }
        for (file, bytes) in files(&dir) {
            let (revision, property) = file.split_once('.').expect("files are named <revision>.<property>");
            let r = sched_execution(name, revision, &bytes).unwrap();
            assert!(
                r.violations.iter().any(|v| v.property == property),
                "{file}: expected {property}, got {:?}",
                r.violations
            );
            let again = find(name)
                .unwrap()
                .replay(
                    revision,
                    Checker::ShuttleRandom,
                    ShuttleSchedule::Recorded(&r.schedule),
                    &Bounds::defaults(Tier::Quick),
                )
                .unwrap();
            assert_eq!(again.steps, r.steps, "{file}: the schedule string does not reproduce the byte-driven trace");
            assert_eq!(again.violations, r.violations);
            assert_eq!(again.schedule, r.schedule);
            seen += 1;
        }
    }
    assert!(seen >= 2, "the regressions directory lost its inputs");
}

#[test]
fn the_byte_scheduler_is_deterministic_and_total() {
    // Any bytes are a schedule; the same bytes give the same execution.
    for bytes in [vec![], vec![255; 300], (0..=255).collect::<Vec<u8>>()] {
        let a = sched_execution("dontcache-kick", "v7", &bytes).unwrap();
        let b = sched_execution("dontcache-kick", "v7", &bytes).unwrap();
        assert_eq!(a.steps, b.steps);
        assert_eq!(a.schedule, b.schedule);
    }
}

#[test]
fn campaign_configuration_errors_name_the_valid_values() {
    assert_eq!(campaign_revision("dontcache-kick", None).unwrap(), "v7-fix-kick-hold");
    assert_eq!(campaign_revision("bdev-slots", None).unwrap(), "packed");
    assert_eq!(campaign_revision("wb-pin", Some("v6-unpinned".into())).unwrap(), "v6-unpinned");
    let e = campaign_revision("wb-pin", Some("v9".into())).unwrap_err();
    assert!(e.contains("WBCHECK_FUZZ_REVISION") && e.contains("v6-unpinned"), "{e}");
    assert!(campaign_revision("no-such", None).unwrap_err().contains("dontcache-kick"));
    assert_eq!(campaign_properties("wb-pin", None).unwrap(), Vec::<&str>::new());
    assert_eq!(
        campaign_properties("wb-pin", Some("use-after-free,expedition".into())).unwrap(),
        vec!["use-after-free", "expedition"]
    );
    let e = campaign_properties("wb-pin", Some("use-after-fre".into())).unwrap_err();
    assert!(e.contains("WBCHECK_FUZZ_PROPERTY") && e.contains("use-after-free"), "{e}");
}
