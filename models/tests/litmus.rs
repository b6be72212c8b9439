//! The committed LKMM exports under `models/litmus/` are the generator's output (golden files):
//! one file per export, each with a `Result:` line. Regenerate them with
//! `WBCHECK_BLESS=1 cargo test -p wb-models --test litmus`.

use std::collections::BTreeSet;
use std::path::Path;
use wb_models::litmus::{export, exports, Outcome};

#[test]
fn committed_exports_match_the_generator() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let bless = std::env::var_os("WBCHECK_BLESS").is_some();
    let mut names = BTreeSet::new();
    for l in exports() {
        let text = l.render();
        assert_eq!(export(l.scenario, l.revision, l.shape).unwrap(), text, "the CLI prints the same text");
        let path = dir.join(l.file_name());
        assert!(names.insert(l.file_name()), "two exports named {}", l.file_name());
        if bless {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(committed, text, "{} is stale: regenerate with WBCHECK_BLESS=1", path.display());
    }
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".litmus") {
            assert!(names.contains(&name), "{name} in {} is no export: delete it", dir.display());
        }
    }
}

/// Every test has the parts herd7 needs, its name matches its file, and its Result line is the
/// one the kernel's judgelitmus.sh reads (`^[( ]\* Result: ` then the outcome word).
#[test]
fn every_export_is_a_judgeable_litmus_test() {
    for l in exports() {
        let text = l.render();
        let first = text.lines().next().unwrap();
        assert_eq!(first, format!("C {}", l.name()));
        let result = text.lines().find_map(|s| s.strip_prefix(" * Result: ")).expect("a Result line");
        let mut words = result.split_whitespace();
        assert!(Outcome::from_name(words.next().unwrap()).is_some(), "{result}");
        assert_eq!(words.next() == Some("DATARACE"), l.prediction.data_race, "{}", l.name());
        assert!(text.contains("\nexists ("), "{}", l.name());
        assert!(text.contains("\nP0(") && text.contains("\nP1("), "{}", l.name());
        assert_eq!(text.matches('{').count(), text.matches('}').count(), "{}: braces", l.name());
    }
}

/// The required exports exist: wb-pin's lifetime at v6-unpinned, v7 and put-before-wakeup,
/// percpu-counter at kernel and unlocked-fold, bdev-slots at v6 and packed, and every v7
/// finding (the kick's guard, the rescuer, the kick lost across a switch, the accounting drift
/// pairs).
#[test]
fn the_required_exports_exist() {
    let have: BTreeSet<String> = exports().iter().map(|l| l.name()).collect();
    for name in [
        "wb-pin+v6-unpinned",
        "wb-pin+v7",
        "wb-pin+put-before-wakeup",
        "wb-pin+v7+i-wb-switch",
        "wb-pin+v7+switch-kick",
        "wb-pin+v7-fix-switch-kick+switch-kick",
        "percpu-counter+kernel",
        "percpu-counter+unlocked-fold",
        "percpu-counter+kernel+sum",
        "bdev-slots+v6",
        "bdev-slots+packed",
        "dontcache-kick+v7+guard",
        "dontcache-kick+v5-approx-read+fold",
        "dontcache-kick+v7+rescuer",
        "dontcache-kick+v7-fix-kick-hold+first-dirty",
    ] {
        assert!(have.contains(name), "no export {name}");
    }
    let drift = have.iter().filter(|n| n.starts_with("dontcache-accounting+v7+")).count();
    assert_eq!(drift, 5, "one export per v7 accounting drift pair");
}

/// The predictions, written out (the loom verdicts they come from are checked by every matrix
/// run): the store-buffering shape is allowed only without a full barrier between the writer's
/// add and its bit test; the two v5 consumes lose the wakeup whatever the barriers; the RCU
/// lifetime is safe exactly when the wakeup is inside the section or pinned until after it.
#[test]
fn results_state_the_predictions() {
    let result = |name: &str| {
        let l = exports().into_iter().find(|l| l.name() == name).unwrap_or_else(|| panic!("no export {name}"));
        l.prediction.to_string()
    };
    for (name, want) in [
        ("dontcache-kick+v7", "Never"),
        ("dontcache-kick+v7-posted", "Never"),
        ("dontcache-kick+v7-posted-no-mb", "Sometimes"),
        ("dontcache-kick+v7-no-mb", "Never"),
        ("dontcache-kick+v5-late-clear", "Sometimes"),
        ("dontcache-kick+v5-approx-read", "Sometimes"),
        ("dontcache-kick+v5-approx-read+fold", "Never DATARACE"),
        ("dontcache-kick+v7-fix-kick", "Never"),
        ("dontcache-kick+v7-fix-kick-posted", "Never"),
        ("dontcache-kick+v7-fix-kick-posted-requeue-no-mb", "Sometimes"),
        ("dontcache-kick+v7-fix-kick-requeue-no-mb", "Never"),
        ("dontcache-kick+v7+guard", "Sometimes"),
        ("dontcache-kick+v7-posted+guard", "Sometimes"),
        ("dontcache-kick+v7+rescuer", "Always"),
        ("dontcache-kick+v7-fix-kick-requeue+rescuer", "Never"),
        ("dontcache-kick+v7-fix-kick-hold+first-dirty", "Never"),
        ("wb-pin+v7", "Never"),
        ("wb-pin+v6-unpinned", "Sometimes"),
        ("wb-pin+v5-wakeup-in-section", "Never"),
        ("wb-pin+put-before-wakeup", "Sometimes"),
        ("wb-pin+v7-fix-switch-kick", "Never"),
        ("wb-pin+v7+i-wb-switch", "Never"),
        ("wb-pin+v7+switch-kick", "Sometimes"),
        ("wb-pin+v7-fix-switch-kick+switch-kick", "Never"),
        ("percpu-counter+kernel", "Never"),
        ("percpu-counter+unlocked-fold", "Sometimes DATARACE"),
        ("percpu-counter+kernel+sum", "Sometimes DATARACE"),
        ("bdev-slots+v6", "Sometimes DATARACE"),
        ("bdev-slots+packed", "Never"),
    ] {
        assert_eq!(result(name), want, "{name}");
    }
    let text = |name: &str| exports().into_iter().find(|l| l.name() == name).unwrap().render();
    assert!(!text("dontcache-kick+v7-posted-no-mb").contains("smp_mb();"));
    assert!(text("dontcache-kick+v7-posted").contains("smp_mb();"));
    assert!(text("dontcache-kick+v7").contains("r1 = xchg(start, 1);"));
    assert!(text("percpu-counter+kernel+sum").contains("r3 = *slot0;"), "the sum's plain load");
    assert!(!text("percpu-counter+unlocked-fold").contains("spin_lock(fbc_lock);"));
}

/// Every export's `Result:` line is herd7's answer under LKMM 6.12 and the current LKMM, as the
/// kernel's judgelitmus.sh judges (a predicted data race flagged, and with it an outcome LKMM
/// leaves undefined forgiven): checked against the answers recorded in
/// `models/litmus/herd7-answers.txt` everywhere, and, where herd7 is installed
/// (`wb_models::litmus::herd7`), the recorded answers against herd7 itself (`WBCHECK_BLESS=1`
/// records them again).
#[test]
fn every_result_line_is_herd7s_answer() {
    use wb_models::litmus::herd7::Herd7;
    use wb_models::litmus::{herd7_answers, judge, HERD7_MODELS};
    let answers = herd7_answers().unwrap();
    let bless = std::env::var_os("WBCHECK_BLESS").is_some();
    let all = exports();
    for (name, model, o) in &answers {
        let l = all.iter().find(|l| l.name() == *name).unwrap_or_else(|| panic!("herd7-answers.txt: no export {name}"));
        let verdict = judge::judge_one(l.prediction, o);
        assert!(matches!(verdict, judge::Verdict::Agrees | judge::Verdict::Forgiven), "{name} ({model}): {verdict:?}");
    }
    for l in all.iter().filter(|_| !bless) {
        for m in HERD7_MODELS {
            assert!(
                answers.iter().any(|(n, model, _)| *n == l.name() && model == m),
                "{}: no answer for {m}",
                l.name()
            );
        }
    }
    let Some(herd7) = Herd7::from_env().unwrap() else { return };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let mut measured = String::from(
        "# herd7 7.58's answers on every export (models/tests/litmus.rs): NAME MODEL OUTCOME POS NEG [race]\n",
    );
    let mut wrong = Vec::new();
    // One thread per LKMM copy: herd7 takes about a minute per copy on all exports.
    let observed: Vec<Vec<judge::Observation>> = std::thread::scope(|scope| {
        let runs: Vec<_> = herd7
            .models
            .iter()
            .map(|(_, model_dir)| {
                let (herd7, all, dir) = (&herd7, &all, &dir);
                scope.spawn(move || {
                    all.iter()
                        .map(|l| {
                            herd7
                                .observe(model_dir, &dir.join(l.file_name()))
                                .unwrap_or_else(|e| panic!("{}: {e}", l.name()))
                        })
                        .collect()
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for (i, l) in all.iter().enumerate() {
        for ((model, _), of_model) in herd7.models.iter().zip(&observed) {
            let o = &of_model[i];
            let verdict = judge::judge_one(l.prediction, o);
            assert!(
                matches!(verdict, judge::Verdict::Agrees | judge::Verdict::Forgiven),
                "{} under {model}: herd7 says {} {} {} race={}: {verdict:?}",
                l.name(),
                o.outcome.name(),
                o.positive,
                o.negative,
                o.data_race
            );
            let race = if o.data_race { " race" } else { "" };
            measured.push_str(&format!(
                "{} {model} {} {} {}{race}\n",
                l.name(),
                o.outcome.name(),
                o.positive,
                o.negative
            ));
            match answers.iter().find(|(n, m, _)| *n == l.name() && m == model) {
                Some((_, _, recorded)) if recorded == o => {}
                Some((_, _, recorded)) => {
                    wrong.push(format!("{} {model}: recorded {recorded:?}, herd7 {o:?}", l.name()))
                }
                None if HERD7_MODELS.contains(&model.as_str()) => {
                    wrong.push(format!("{} {model}: not recorded", l.name()))
                }
                None => {}
            }
        }
    }
    if bless {
        std::fs::write(dir.join("herd7-answers.txt"), measured).unwrap();
        return;
    }
    assert!(
        wrong.is_empty(),
        "herd7-answers.txt differs from herd7 (WBCHECK_BLESS=1 records it):\n{}",
        wrong.join("\n")
    );
}

/// No export names a parameter after a word herd7's C lexer reserves (`lock` made six exports
/// unparsable: "unexpected 'lock' (in prog)").
#[test]
fn no_parameter_is_a_herd7_reserved_word() {
    for l in exports() {
        let text = l.render();
        for line in text.lines().filter(|line| line.starts_with('P') && line.contains('(')) {
            let params = &line[line.find('(').unwrap() + 1..line.rfind(')').unwrap()];
            for name in params.split(',').filter_map(|p| p.rsplit(['*', ' ']).next()) {
                let name = name.trim();
                assert!(!wb_models::c11::herd::is_c_reserved(name), "{}: parameter `{name}` in {line}", l.name());
            }
        }
    }
}
