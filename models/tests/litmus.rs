//! The committed LKMM exports under `models/litmus/` are the generator's output (golden files):
//! one per dontcache-kick revision, each with a `Result:` line. Regenerate them with
//! `WBCHECK_BLESS=1 cargo test -p wb-models --test litmus`.

use std::path::Path;
use wb_core::revision::KickRevision;
use wb_models::litmus::{export, file_name};

#[test]
fn committed_exports_match_the_generator() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let bless = std::env::var_os("WBCHECK_BLESS").is_some();
    for rev in KickRevision::ALL {
        let text = export("dontcache-kick", rev.name()).unwrap();
        let path = dir.join(file_name("dontcache-kick", rev.name()));
        if bless {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(committed, text, "{} is stale: regenerate with WBCHECK_BLESS=1", path.display());
    }
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "litmus"));
    assert_eq!(files.count(), KickRevision::ALL.len(), "a .litmus file without a revision in {}", dir.display());
}

/// The predictions, written out: the store-buffering shape is allowed only without a full
/// barrier between the writer's add and its bit test, and the two v5 consumes lose the wakeup
/// whatever the barriers.
#[test]
fn results_state_the_loom_predictions() {
    let result = |rev: &str| {
        let text = export("dontcache-kick", rev).unwrap();
        text.lines().find_map(|l| l.strip_prefix(" * Result: ")).expect("a Result line").to_string()
    };
    for (rev, want) in [
        ("v7", "Never"),
        ("v7-posted", "Never"),
        ("v7-posted-no-mb", "Sometimes"),
        ("v7-no-mb", "Never"),
        ("v5-late-clear", "Sometimes"),
        ("v5-approx-read", "Sometimes"),
        ("v7-fix-kick", "Never"),
        ("v7-fix-kick-posted", "Never"),
        ("v7-fix-kick-posted-no-mb", "Sometimes"),
        ("v7-fix-kick-no-mb", "Never"),
    ] {
        assert_eq!(result(rev), want, "{rev}");
    }
    let no_mb = export("dontcache-kick", "v7-posted-no-mb").unwrap();
    assert!(!no_mb.contains("smp_mb();") && export("dontcache-kick", "v7-posted").unwrap().contains("smp_mb();"));
    assert!(export("dontcache-kick", "v7").unwrap().contains("r1 = xchg(start, 1);"));
}
