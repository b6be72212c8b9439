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
    holds(&root().join("models/litmus/README.md"), "exports", &wb_models::litmus::readme_table());
}
