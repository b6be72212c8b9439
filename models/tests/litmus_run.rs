//! `wbcheck litmus --run` ([`wb_models::litmus::run`]): every committed export run under loom
//! through wb-core's primitive mapping must give its own `Result:` line (the round trip: the
//! prediction came from a loom verdict on the scenario's model, and here loom runs the litmus
//! text itself), unless the difference is explained in the export's comment and in
//! models/litmus/README.md and listed in [`EXPLAINED`]. Also: the runner can fail (store
//! buffering is Sometimes under loom and Never under SC), plain accesses are checked for races,
//! and what it does not support is an error naming the construct and its line.

use std::path::Path;
use wb_models::litmus::run::parse::Expected;
use wb_models::litmus::run::{self, Report};
use wb_models::litmus::{exports, Outcome};

/// Exports whose loom observation differs from their `Result:` line, each with the reason its
/// comment and the README give. None today: every export agrees.
const EXPLAINED: &[(&str, &str)] = &[];

fn litmus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus")
}

fn run_text(text: &str) -> Report {
    run::run(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn every_export_round_trips_through_loom() {
    let mut differ = Vec::new();
    for l in exports() {
        let path = litmus_dir().join(l.file_name());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let report = run_text(&text);
        assert_eq!(
            report.expected,
            Some(Expected::Outcome(l.prediction)),
            "{}: the Result line is the export's prediction",
            l.name()
        );
        // Stricter than the judge: a racy export's outcome must equal too (it came from loom).
        let seen = &report.loom.observation;
        if report.disagrees() || seen.outcome != l.prediction.outcome || seen.data_race != l.prediction.data_race {
            differ.push((l.name(), report.judgements.first().map(|j| j.to_string()).unwrap_or_default()));
        }
    }
    for (name, judgement) in &differ {
        assert!(EXPLAINED.iter().any(|(n, _)| n == name), "unexplained difference: {judgement}");
    }
    for (name, _) in EXPLAINED {
        assert!(differ.iter().any(|(n, _)| n == name), "{name} is listed as differing but agrees: remove it");
    }
}

const SB: &str = "C SB+once+once
(* Result: Sometimes *)
{ x=0; y=0; }
P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }
exists (0:r0=0 /\\ 1:r0=0)
";

/// Store buffering without barriers: the weak outcome is loom's alone, and `smp_mb()` forbids it.
#[test]
fn store_buffering_is_sometimes_under_loom_never_under_sc() {
    let r = run_text(SB);
    assert_eq!(
        (r.loom.observation.outcome, r.loom.observation.positive, r.loom.observation.negative),
        (Outcome::Sometimes, 1, 3)
    );
    assert_eq!(
        (r.sc.observation.outcome, r.sc.observation.positive, r.sc.observation.negative),
        (Outcome::Never, 0, 3)
    );
    assert!(!r.disagrees() && r.race.is_none());
    let mb = SB.replace("1); r0", "1); smp_mb(); r0").replace("Sometimes", "Never");
    let r = run_text(&mb);
    assert_eq!(r.loom.observation.outcome, Outcome::Never);
    assert!(!r.disagrees());
    // A wrong Result line is a disagreement, not a pass.
    assert!(run_text(&SB.replace("Sometimes", "Never")).disagrees());
}

/// Message passing through a pointer published with rcu_assign_pointer and read with
/// rcu_dereference, with `~exists` and `forall` counted as herd7 counts them (the proposition
/// inside).
#[test]
fn pointers_branches_and_quantifiers() {
    let mp = "C MP+assign+deref
{ x=0; p=y; y=5; }
P0(int *x, int **p) { WRITE_ONCE(*x, 1); rcu_assign_pointer(*p, x); }
P1(int **p, int *x) { int *r0; int r1; r0 = rcu_dereference(*p); if (r0 == x) r1 = READ_ONCE(*r0); else { r1 = -1; } }
QUANT
";
    let exists = run_text(&mp.replace("QUANT", "exists (1:r0=x /\\ 1:r1=0)"));
    assert_eq!(exists.loom.observation.outcome, Outcome::Never);
    let states: Vec<String> = exists.loom.states.iter().map(|(s, _)| format!("{s:?}")).collect();
    assert_eq!(states.len(), 2, "{states:?}: the old pointer (r1=-1) or x with its value");
    let not_exists = run_text(&mp.replace("QUANT", "~exists (1:r0=x /\\ 1:r1=0)"));
    assert_eq!(not_exists.loom.observation, exists.loom.observation);
    let forall = run_text(&mp.replace("QUANT", "forall (1:r0=y \\/ 1:r1=1)"));
    assert_eq!((forall.loom.observation.outcome, forall.sc.observation.outcome), (Outcome::Always, Outcome::Always));
}

/// Each primitive computes the value the kernel's does (one process, so one final state).
#[test]
fn primitives_compute_their_values() {
    let text = "C values
{ a=ATOMIC_INIT(5); c=1; 0:r9=7; }
P0(atomic_t *a, int *c, spinlock_t *l)
{
	int r0; int r1; int r2; int r3; int r4; int r5; int r6; int r7; int r8; int r9;
	r0 = atomic_add_return(2, a);
	r1 = atomic_fetch_sub_relaxed(3, a);
	r2 = atomic_inc_return_acquire(a);
	r3 = cmpxchg(c, 1, 2);
	r4 = cmpxchg_release(c, 1, 3);
	r5 = atomic_dec_and_test(c);
	if (spin_trylock(l)) { r6 = 1; spin_unlock(l); } else r6 = 2;
	r7 = xchg_relaxed(c, 10);
	r8 = !r7 || r7 == 1 && r6 != 1;
	r9 = r9 * 2 - 1;
	atomic_dec(a);
}
forall (0:r0=7 /\\ 0:r1=7 /\\ 0:r2=5 /\\ 0:r3=1 /\\ 0:r4=2 /\\ 0:r5=0 /\\ 0:r6=1 /\\ 0:r7=1 /\\ 0:r8=0 /\\ 0:r9=13 /\\ c=10 /\\ a=4)
";
    let r = run_text(text);
    for o in [&r.loom.observation, &r.sc.observation] {
        assert_eq!((o.outcome, o.positive, o.negative), (Outcome::Always, 1, 0), "{r}");
    }
}

/// Plain accesses race unless ordered (a lock here); a race is flagged for every checker.
#[test]
fn plain_accesses_race_unless_locked() {
    let racy = "C plain
{ }
P0(int *x, spinlock_t *l) { int r0; LOCK r0 = *x; *x = r0 + 1; UNLOCK }
P1(int *x, spinlock_t *l) { int r1; LOCK r1 = *x; *x = r1 + 1; UNLOCK }
exists (x=1)
";
    let r = run_text(&racy.replace("UNLOCK", "").replace("LOCK", ""));
    assert!(r.race.as_deref().is_some_and(|race| race.contains("on x")), "{:?}", r.race);
    assert!(r.loom.observation.data_race && r.loom.observation.outcome == Outcome::Sometimes);
    let locked = run_text(&racy.replace("UNLOCK", "spin_unlock(l);").replace("LOCK", "spin_lock(l);"));
    assert_eq!(locked.race, None);
    assert_eq!(locked.loom.observation.outcome, Outcome::Never);
    // Release/acquire orders the plain accesses around it.
    let mp = "C MP+plain
{ }
P0(int *x, int *y) { *x = 1; smp_store_release(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = smp_load_acquire(y); if (r0) r1 = *x; }
exists (1:r0=1 /\\ 1:r1=0)
";
    let r = run_text(mp);
    assert_eq!((r.race, r.loom.observation.outcome), (None, Outcome::Never));
    let r = run_text(&mp.replace("smp_load_acquire(y)", "READ_ONCE(*y)"));
    assert!(r.race.is_some(), "a relaxed read orders nothing");
}

/// What the runner does not support is an error that names the construct and its line, never
/// a verdict.
#[test]
fn unsupported_constructs_are_errors_naming_construct_and_line() {
    let cases = [
        ("r0 = READ_ONCE(*y);", "while (1) { }", "line 5: unsupported construct: a loop ('while')"),
        (
            "r0 = READ_ONCE(*y);",
            "r0 = smp_cond_load_acquire(y, VAL);",
            "line 5: unsupported primitive 'smp_cond_load_acquire'",
        ),
        ("r0 = READ_ONCE(*y);", "r0 = READ_ONCE(y);", "line 5: READ_ONCE's first argument must be written *p"),
        ("r0 = READ_ONCE(*y);", "r0 = z;", "line 5: unknown name 'z': not a parameter or register of P0"),
        ("r0 = READ_ONCE(*y);", "r0 = smp_mb();", "line 5: smp_mb returns no value"),
        ("r0 = READ_ONCE(*y);", "r0 = x[1];", "line 5: unsupported construct: an array or a struct member"),
        ("exists (0:r0=0 /\\ 1:r0=0)", "exists (0:r9=0)", "line 9: 0:r9: P0 has no register 'r9'"),
        (
            "exists (0:r0=0 /\\ 1:r0=0)",
            "locations [x;]",
            "line 9: expected the final clause (exists, ~exists or forall), found the end of the file",
        ),
    ];
    let sb = SB.replace("(* Result: Sometimes *)\n", "").replace("{ int r0; ", "{\nint r0;\n");
    for (from, to, message) in cases {
        let text = sb.replacen(from, to, 1);
        assert_ne!(text, sb);
        assert_eq!(run::run(&text).unwrap_err(), message, "{text}");
    }
    let deref = SB.replace("r0 = READ_ONCE(*y);", "r0 = READ_ONCE(*y); r0 = READ_ONCE(*r0);");
    let e = run::run(&deref).unwrap_err();
    assert!(
        e.starts_with("P0 line 4: READ_ONCE on the value ") && e.ends_with("which is not the address of a location"),
        "{e}"
    );
}

/// The conformance tests (classic LKMM shapes) are all in the supported dialect.
#[test]
fn conformance_tests_parse() {
    let dir = litmus_dir().join("conformance");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    for e in entries {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "litmus") {
            let text = std::fs::read_to_string(&path).unwrap();
            let test = run::parse::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            run::lower::lower(&test).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// One row of the conformance table in models/litmus/README.md.
#[derive(Clone)]
struct Row {
    name: String,
    lkmm: String,
    loom: String,
    sc: String,
    class: String,
    /// The row's loom run is checked only with `WBCHECK_LITMUS_SLOW=1`.
    slow: bool,
}

/// `Outcome POS NEG` of a cell, the rest (a note) dropped.
fn observed(cell: &str) -> String {
    cell.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

fn conformance_rows(readme: &str) -> Vec<Row> {
    let (_, rest) = readme.split_once("<!-- conformance:begin -->").expect("the conformance table's begin marker");
    let (table, _) = rest.split_once("<!-- conformance:end -->").expect("the conformance table's end marker");
    let lines = table.lines().filter(|l| l.starts_with('|')).skip(2); // header, separator
    lines
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 6, "{line}: shape | LKMM | loom | SC | class | reason");
            Row {
                name: cells[0].trim_matches('`').to_string(),
                lkmm: cells[1].to_string(),
                loom: observed(cells[2]),
                sc: observed(cells[3]),
                class: cells[4].to_string(),
                slow: cells[2].contains("WBCHECK_LITMUS_SLOW"),
            }
        })
        .collect()
}

/// What the loom observation says of the mapping against LKMM's result: `agree`, `loom weaker`
/// (loom shows a state LKMM forbids: a false alarm at worst), `loom stronger` (loom never shows a
/// state LKMM allows: it can hide a bug).
fn classify(lkmm: Outcome, outcome: Outcome, positive: u64, negative: u64) -> &'static str {
    if lkmm == outcome {
        return "agree";
    }
    let lkmm_allows = (lkmm != Outcome::Never, lkmm != Outcome::Always);
    let weaker = (positive > 0 && !lkmm_allows.0) || (negative > 0 && !lkmm_allows.1);
    let stronger = (positive == 0 && lkmm_allows.0) || (negative == 0 && lkmm_allows.1);
    match (weaker, stronger) {
        (true, false) => "loom weaker",
        (false, true) => "loom stronger",
        _ => "loom weaker and stronger",
    }
}

/// The SC enumerator's observation alone (the slow row's loom run is opt-in, its SC run is not).
fn sc_observation(text: &str) -> String {
    let test = run::parse::parse(text).unwrap();
    let prog = run::lower::lower(&test).unwrap();
    let o = run::checked(&prog, &run::sc::enumerate(&prog).unwrap().finals, 0, false).observation;
    format!("{} {} {}", o.outcome.name(), o.positive, o.negative)
}

/// models/litmus/README.md's conformance table is the runner's output: one row per file of
/// `conformance/`, its LKMM column the file's `Result:` line, its loom and SC columns the
/// observations (`Outcome POS NEG`), its class computed from LKMM and loom, and the counts in
/// that README and the top-level one. The row marked `WBCHECK_LITMUS_SLOW` (minutes of loom
/// executions, the grace-period model's polling) has its loom run checked only with
/// `WBCHECK_LITMUS_SLOW=1`. Not in the cfg(loom) build: it would run the same loom twice in CI.
#[cfg(not(loom))]
#[test]
fn conformance_table_is_the_runners_output() {
    let slow = std::env::var_os("WBCHECK_LITMUS_SLOW").is_some_and(|v| v == "1");
    let readme = std::fs::read_to_string(litmus_dir().join("README.md")).unwrap();
    let rows = conformance_rows(&readme);
    let dir = litmus_dir().join("conformance");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".litmus"))
        .collect();
    files.sort(); // as `ls` lists them
    let files: Vec<&str> = files.iter().map(|n| n.trim_end_matches(".litmus")).collect();
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, files, "one row per conformance test, in the order `ls` lists the files");
    let mut wrong = Vec::new();
    let mut counts = [0usize; 3];
    for row in &rows {
        let text = std::fs::read_to_string(dir.join(format!("{}.litmus", row.name))).unwrap();
        let lkmm = match run::parse::parse(&text).unwrap().result {
            Some(Expected::Outcome(p)) => p,
            other => panic!("{}: Result line {other:?}, not an outcome", row.name),
        };
        let mut seen = Row { lkmm: lkmm.to_string(), ..row.clone() };
        if row.slow && !slow {
            seen.sc = sc_observation(&text);
        } else {
            let r = run_text(&text);
            let (l, s) = (&r.loom.observation, &r.sc.observation);
            assert!(!l.data_race, "{}: a conformance test has no plain accesses", row.name);
            seen.loom = format!("{} {} {}", l.outcome.name(), l.positive, l.negative);
            seen.sc = format!("{} {} {}", s.outcome.name(), s.positive, s.negative);
        }
        let loom: Vec<&str> = seen.loom.split(' ').collect();
        let parsed = Outcome::from_name(loom[0]).zip(loom.get(1).and_then(|p| p.parse().ok()));
        let ((outcome, positive), negative) =
            parsed.zip(loom.get(2).and_then(|n| n.parse().ok())).unwrap_or_else(|| panic!("{}: loom cell", row.name));
        seen.class = classify(lkmm.outcome, outcome, positive, negative).to_string();
        match seen.class.as_str() {
            "agree" => counts[0] += 1,
            "loom weaker" => counts[1] += 1,
            "loom stronger" => counts[2] += 1,
            _ => {}
        }
        for (column, table, measured) in [
            ("LKMM", &row.lkmm, &seen.lkmm),
            ("loom", &row.loom, &seen.loom),
            ("SC", &row.sc, &seen.sc),
            ("class", &row.class, &seen.class),
        ] {
            if table != measured {
                wrong.push(format!("{}: {column} is `{measured}`, the table says `{table}`", row.name));
            }
        }
    }
    assert!(wrong.is_empty(), "models/litmus/README.md's conformance table differs:\n{}", wrong.join("\n"));
    let summary = format!("{} agree, {} loom weaker, {} loom stronger", counts[0], counts[1], counts[2]);
    assert!(readme.contains(&format!("**{summary}**")), "models/litmus/README.md: the counts are {summary}");
    let top = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    assert!(top.contains(&summary), "README.md: the conformance counts are {summary}");
}
