//! The kernel patches in docs/patches/ against the model revisions they come from: a patch and its
//! revision change the same kernel functions, so the diff a reviewer sends is the code the checkers
//! judged.

use std::collections::BTreeSet;
use wb_core::revision::{KickProtocol, KickRevision};

/// The functions a unified diff changes: each `+`/`-` line is attributed to the function whose
/// definition (a line at column 0 naming `name(` and not ending in `;`) precedes it in its hunk,
/// or to the one the hunk header names.
fn functions_changed(diff: &str) -> BTreeSet<String> {
    let definition = |line: &str| -> Option<String> {
        let first = line.chars().next()?;
        if first.is_whitespace() || first == '{' || first == '}' || first == '#' || line.trim_end().ends_with(';') {
            return None;
        }
        let open = line.find('(')?;
        let name: String =
            line[..open].chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
        (!name.is_empty()).then(|| name.chars().rev().collect())
    };
    let mut changed = BTreeSet::new();
    let mut current: Option<String> = None;
    for line in diff.lines().skip_while(|l| !l.starts_with("@@")) {
        if let Some(header) = line.strip_prefix("@@") {
            current = header.split_once("@@").and_then(|(_, f)| definition(f.trim_start()));
            continue;
        }
        let Some(first) = line.chars().next() else { continue };
        let body = &line[first.len_utf8()..];
        if let Some(f) = definition(body) {
            current = Some(f);
        }
        if (first == '+' || first == '-') && !line.starts_with("+++") && !line.starts_with("---") {
            changed.insert(current.clone().unwrap_or_else(|| panic!("a change outside any function: {line}")));
        }
    }
    changed
}

#[test]
fn the_kick_patch_changes_what_the_revision_changes() {
    let patch = include_str!(
        "../../docs/patches/0001-writeback-hold-the-dontcache-kick-until-writeback-can-reach-its-pages.patch"
    );
    let from_model: BTreeSet<String> = KickRevision::V7FixKickHold
        .knobs()
        .functions_changed_from(&KickProtocol::V7)
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(functions_changed(patch), from_model);
    assert!(patch.contains(KickRevision::V7FixKickHold.name()), "the changelog names the model revision");
    assert!(patch.contains("dontcache-kick+v7-fix-kick-hold+first-dirty.litmus"), "and the litmus test");
}

/// The diff reader itself: a change inside a function defined in the hunk is that function's, a
/// change before it the header's.
#[test]
fn the_diff_reader_attributes_changes_to_functions() {
    let diff = "--- a/f.c\n+++ b/f.c\n@@ -1,4 +1,4 @@ static int a(void)\n-\treturn 1;\n+\treturn 2;\n }\n \n static void b(int x)\n {\n-\tx++;\n+\tx--;\n";
    let got: Vec<String> = functions_changed(diff).into_iter().collect();
    assert_eq!(got, ["a", "b"]);
}
