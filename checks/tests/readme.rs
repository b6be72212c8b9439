//! The generated tables are the catalogue's: the README catalogue, each scenario header's verdict
//! table and the litmus exports' table. `WBCHECK_BLESS=1 cargo test -p wb-checks --test readme`
//! writes them; without it a committed table that differs fails here.

use std::path::{Path, PathBuf};
use wb_models::catalogue::{header_table, readme_table, splice};
use wb_models::registry::scenarios;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Splice `block` between the `name` markers of `path`: write it when blessing, else compare.
fn holds(path: &Path, name: &str, block: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let want = splice(&text, name, block).unwrap_or_else(|| panic!("{}: no {name} markers", path.display()));
    if std::env::var_os("WBCHECK_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    } else {
        assert!(text == want, "{}'s {name} table is stale: regenerate with WBCHECK_BLESS=1", path.display());
    }
}

#[test]
fn readme_catalogue_is_the_catalogue() {
    holds(&root().join("README.md"), "catalogue", &readme_table());
}

#[test]
fn scenario_headers_hold_their_verdict_tables() {
    for s in scenarios() {
        let info = s.info();
        let path = root().join("models/src").join(format!("{}.md", info.name.replace('-', "_")));
        holds(&path, "verdicts", &header_table(&info));
    }
}

#[test]
fn litmus_readme_holds_the_exports_table() {
    let table = wb_models::litmus::readme_table();
    holds(&root().join("models/litmus/README.md"), "exports", &table);
}

/// The counterexamples under "Reading a counterexample" (docs/counterexamples.md) are the tool's
/// real output, stale-read marks included: only the milliseconds may differ.
#[test]
fn documented_counterexamples_are_the_real_output() {
    let doc = include_str!("../../docs/counterexamples.md");
    let pasted = |revision: &str| {
        let intro = format!("--revision {revision} --checker loom` prints (a real run):\n\n```text\n");
        let start = doc.find(&intro).unwrap_or_else(|| panic!("the {revision} example")) + intro.len();
        doc[start..start + doc[start..].find("```\n").expect("its end")].to_owned()
    };
    let without_millis = |s: &str| {
        let (head, rest) = s.split_once(" executions in ").expect("the row line");
        (head.to_owned(), rest.split_once('\n').expect("more than the row line").1.to_owned())
    };
    for revision in ["v7", "v5-late-clear"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_wbcheck"))
            .args(["run", "dontcache-kick", "--revision", revision, "--checker", "loom"])
            .output()
            .expect("wbcheck runs");
        let real = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            without_millis(&pasted(revision)),
            without_millis(&real),
            "regenerate the {revision} example in docs/counterexamples.md"
        );
    }
    assert!(pasted("v5-late-clear").contains("[stale: step "), "the second example shows a stale read");
}
