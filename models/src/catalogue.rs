//! The catalogue as Markdown: the README's table of every revision and each scenario header's
//! verdict table are generated from the revision catalogues (`wb_core::revision`) and spliced
//! between marker comments (`WBCHECK_BLESS=1 cargo test -p wb-checks --test readme` writes them;
//! without it the test fails when a committed table differs).

use crate::bounds::Tier;
use crate::outcome::Checker;
use crate::registry::scenarios;
use crate::scenario::{RevisionInfo, ScenarioInfo};

/// The properties a checker is expected to find violated, sorted: `pass` when none; a property
/// the checker may miss is followed by `(may miss)`, a shuttle row that runs more than the
/// tier's iterations ends in `(N× iterations)`, and a deep tier that expects otherwise adds
/// `(deep: ...)`.
pub fn verdict(rev: &RevisionInfo, checker: Checker) -> String {
    let listed = |tier| {
        let may_miss = rev.may_miss(checker, tier);
        let violated: Vec<String> = rev
            .expected_violated(checker, tier)
            .into_iter()
            .map(|p| if may_miss.contains(p) { format!("{p} (may miss)") } else { p.to_string() })
            .collect();
        if violated.is_empty() {
            "pass".into()
        } else {
            violated.join(", ")
        }
    };
    let mut cell = listed(Tier::Quick);
    let scale = rev.expect(checker, Tier::Quick).shuttle_scale;
    if scale > 1 {
        cell += &format!(" ({scale}× iterations)");
    }
    if rev.expect(checker, Tier::Deep) != rev.expect(checker, Tier::Quick) {
        cell += &format!(" (deep: {})", listed(Tier::Deep));
    }
    cell
}

fn checker_columns() -> (String, String) {
    let names: Vec<&str> = Checker::ALL.iter().map(|c| c.name()).collect();
    (names.join(" | "), vec!["---"; names.len()].join("|"))
}

fn verdicts(rev: &RevisionInfo) -> String {
    Checker::ALL.iter().map(|&c| verdict(rev, c)).collect::<Vec<_>>().join(" | ")
}

fn provenance(rev: &RevisionInfo) -> String {
    match rev.provenance {
        wb_core::revision::Provenance::Reconstruction(line) => format!("reconstruction of \"{line}\""),
        p => p.name().into(),
    }
}

/// The README's catalogue: every revision of every scenario.
pub fn readme_table() -> String {
    let (names, rule) = checker_columns();
    let mut out = format!("| scenario | revision | role | what it is | {names} |\n|---|---|---|---|{rule}|\n");
    for s in scenarios() {
        let info = s.info();
        for rev in &info.revisions {
            out += &format!(
                "| {} | {} | {} | {} | {} |\n",
                info.name,
                rev.name,
                rev.role.name(),
                rev.summary,
                verdicts(rev)
            );
        }
    }
    out
}

/// A scenario header's table: its revisions, where each comes from, and the expected verdicts.
pub fn header_table(info: &ScenarioInfo) -> String {
    let (names, rule) = checker_columns();
    let mut out = format!("| revision | role | provenance | {names} |\n|---|---|---|{rule}|\n");
    for rev in &info.revisions {
        out += &format!("| {} | {} | {} | {} |\n", rev.name, rev.role.name(), provenance(rev), verdicts(rev));
    }
    out
}

/// `text` with the lines between `<!-- NAME:begin -->` and `<!-- NAME:end -->` replaced by
/// `block`; `None` without both markers.
pub fn splice(text: &str, name: &str, block: &str) -> Option<String> {
    let (begin, end) = (format!("<!-- {name}:begin -->\n"), format!("<!-- {name}:end -->"));
    let start = text.find(&begin)? + begin.len();
    let stop = start + text[start..].find(&end)?;
    Some(format!("{}{block}{}", &text[..start], &text[stop..]))
}
