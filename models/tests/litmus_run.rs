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

/// The conformance tables of models/litmus/README.md: the marker around each, its directory,
/// and the label of its counts line.
fn tables() -> [(&'static str, std::path::PathBuf, &'static str); 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        ("conformance", litmus_dir().join("conformance"), "Our shapes"),
        ("kernel-tests", root.join("third_party/lkmm-litmus-tests-6.12"), "The kernel's tests"),
    ]
}

/// The `.litmus` files of `dir`, as `ls` lists them, without the extension.
fn litmus_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix(".litmus").map(str::to_string))
        .collect();
    files.sort();
    files
}

/// Every test of both tables parses, lowers and runs to a verdict (none is an error).
#[test]
fn every_reference_test_runs() {
    for (_, dir, _) in tables() {
        for name in litmus_files(&dir) {
            let path = dir.join(format!("{name}.litmus"));
            let text = std::fs::read_to_string(&path).unwrap();
            let test = run::parse::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let prog = run::lower::lower(&test).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            run::sc::enumerate(&prog).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// One row of a conformance table in models/litmus/README.md.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Row {
    name: String,
    lkmm: String,
    herd7: String,
    loom: String,
    sc: String,
    class: String,
    reason: String,
    /// The row's loom run is checked only with `WBCHECK_LITMUS_SLOW=1`.
    slow: bool,
}

const SLOW_NOTE: &str = " (`WBCHECK_LITMUS_SLOW=1`)";

impl Row {
    fn render(&self) -> String {
        let slow = if self.slow { SLOW_NOTE } else { "" };
        format!(
            "| `{}` | {} | {} | {}{slow} | {} | {} | {} |",
            self.name, self.lkmm, self.herd7, self.loom, self.sc, self.class, self.reason
        )
    }
}

/// `Outcome POS NEG` of an observation, with `race` when a data race is flagged.
fn cell(o: &wb_models::litmus::judge::Observation) -> String {
    let race = if o.data_race { " race" } else { "" };
    format!("{} {} {}{race}", o.outcome.name(), o.positive, o.negative)
}

fn table_rows(readme: &str, marker: &str) -> Vec<Row> {
    let (_, rest) = readme.split_once(&format!("<!-- {marker}:begin -->")).expect("the table's begin marker");
    let (table, _) = rest.split_once(&format!("<!-- {marker}:end -->")).expect("the table's end marker");
    let lines = table.lines().filter(|l| l.starts_with('|')).skip(2); // header, separator
    lines
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 7, "{line}: shape | LKMM | herd7 | loom | SC | class | reason");
            Row {
                name: cells[0].trim_matches('`').to_string(),
                lkmm: cells[1].to_string(),
                herd7: cells[2].to_string(),
                loom: cells[3].replace(SLOW_NOTE, ""),
                sc: cells[4].to_string(),
                class: cells[5].to_string(),
                reason: cells[6].to_string(),
                slow: cells[3].contains(SLOW_NOTE),
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
    let e = run::sc::enumerate(&prog).unwrap();
    cell(&run::checked(&prog, &e.finals, 0, e.race.is_some()).observation)
}

/// herd7's cell: the observation under every LKMM copy when they agree, else `NAME: obs` each.
fn herd7_cell(observed: &[(String, Result<wb_models::litmus::judge::Observation, String>)]) -> String {
    let cells: Vec<(String, String)> = observed
        .iter()
        .map(|(m, o)| (m.clone(), o.as_ref().map(cell).unwrap_or_else(|e| format!("none ({e})"))))
        .collect();
    if cells.windows(2).all(|w| w[0].1 == w[1].1) {
        cells.first().map(|c| c.1.clone()).unwrap_or_default()
    } else {
        cells.iter().map(|(m, c)| format!("{m}: {c}")).collect::<Vec<_>>().join("; ")
    }
}

/// models/litmus/README.md's two conformance tables are the runner's output: one row per file of
/// `conformance/` (our shapes) and of `third_party/lkmm-litmus-tests-6.12/` (the kernel's), its
/// LKMM column the file's `Result:` line, its herd7 column herd7's observation under LKMM (6.12
/// and current; measured again where herd7 is installed, see `wb_models::litmus::herd7`, and
/// always required to agree with the `Result:` line as the kernel's judgelitmus.sh judges), its
/// loom and SC columns the observations (`Outcome POS NEG`, `race` when flagged), its class
/// computed from LKMM and loom, and the counts in that README and the top-level one. The row
/// marked `WBCHECK_LITMUS_SLOW` (minutes of loom executions, the grace-period model's polling)
/// has its loom run checked only with `WBCHECK_LITMUS_SLOW=1`. `WBCHECK_BLESS=1` rewrites the
/// tables (herd7's column only where herd7 is installed; the reasons are kept). Not in the
/// cfg(loom) build: it would run the same loom twice in CI.
#[cfg(not(loom))]
#[test]
fn conformance_tables_are_the_runners_output() {
    use wb_models::litmus::herd7::Herd7;
    use wb_models::litmus::judge::{judge_expected, parse as parse_herd7, Verdict};
    let slow = std::env::var_os("WBCHECK_LITMUS_SLOW").is_some_and(|v| v == "1");
    let bless = std::env::var_os("WBCHECK_BLESS").is_some_and(|v| v == "1");
    let herd7 = Herd7::from_env().unwrap();
    let readme_path = litmus_dir().join("README.md");
    let mut readme = std::fs::read_to_string(&readme_path).unwrap();
    let top_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let top = std::fs::read_to_string(&top_path).unwrap();
    let mut wrong = Vec::new();
    for (marker, dir, label) in tables() {
        let rows = table_rows(&readme, marker);
        let files = litmus_files(&dir);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        if !bless {
            assert_eq!(names, files, "{marker}: one row per test, in the order `ls` lists the files");
        }
        let mut counts = [0usize; 3];
        let mut measured_rows = Vec::new();
        for name in &files {
            let row = rows.iter().find(|r| &r.name == name).cloned().unwrap_or(Row {
                name: name.clone(),
                lkmm: String::new(),
                herd7: String::new(),
                loom: String::new(),
                sc: String::new(),
                class: String::new(),
                reason: String::new(),
                slow: false,
            });
            let path = dir.join(format!("{name}.litmus"));
            let text = std::fs::read_to_string(&path).unwrap();
            let lkmm = match run::parse::parse(&text).unwrap().result {
                Some(Expected::Outcome(p)) => p,
                other => panic!("{name}: Result line {other:?}, not an outcome"),
            };
            let mut seen = Row { lkmm: lkmm.to_string(), ..row.clone() };
            if row.slow && !slow {
                seen.sc = sc_observation(&text);
            } else {
                let r = run_text(&text);
                seen.loom = cell(&r.loom.observation);
                seen.sc = cell(&r.sc.observation);
            }
            if let Some(h) = &herd7 {
                let observed: Vec<_> = h.models.iter().map(|(m, d)| (m.clone(), h.observe(d, &path))).collect();
                seen.herd7 = herd7_cell(&observed);
            }
            // The herd7 column, measured or recorded, agrees with the Result line.
            for part in seen.herd7.split("; ") {
                let obs = part.rsplit(": ").next().unwrap_or(part);
                let words: Vec<&str> = obs.split_whitespace().collect();
                let line = format!(
                    "Test {name}\n{}Observation {name} {}\n",
                    if words.get(3) == Some(&"race") { "Flag data-race\n" } else { "" },
                    words.iter().take(3).copied().collect::<Vec<_>>().join(" ")
                );
                match parse_herd7(&line).ok().and_then(|o| o.into_iter().next()) {
                    Some(o) => {
                        let v = judge_expected(&Expected::Outcome(lkmm), &o, true);
                        if !matches!(v, Some(Verdict::Agrees | Verdict::Forgiven)) {
                            wrong.push(format!("{name}: herd7 `{obs}` disagrees with its Result line ({v:?})"));
                        }
                    }
                    None => wrong.push(format!("{name}: herd7 cell `{}` is no observation", seen.herd7)),
                }
            }
            let loom: Vec<&str> = seen.loom.split(' ').collect();
            let parsed = Outcome::from_name(loom[0]).zip(loom.get(1).and_then(|p| p.parse().ok()));
            let ((outcome, positive), negative) =
                parsed.zip(loom.get(2).and_then(|n| n.parse().ok())).unwrap_or_else(|| panic!("{name}: loom cell"));
            seen.class = classify(lkmm.outcome, outcome, positive, negative).to_string();
            match seen.class.as_str() {
                "agree" => counts[0] += 1,
                "loom weaker" => counts[1] += 1,
                "loom stronger" => counts[2] += 1,
                _ => {}
            }
            if seen != row {
                wrong.push(format!("{name}: the table says\n  {}\nmeasured:\n  {}", row.render(), seen.render()));
            }
            measured_rows.push(seen);
        }
        let summary = format!("{} agree, {} loom weaker, {} loom stronger", counts[0], counts[1], counts[2]);
        if bless {
            let (head, rest) = readme.split_once(&format!("<!-- {marker}:begin -->")).unwrap();
            let (_, tail) = rest.split_once(&format!("<!-- {marker}:end -->")).unwrap();
            let mut table = String::from(
                "\n| shape | LKMM | herd7 | loom | SC | class | reason |\n|---|---|---|---|---|---|---|\n",
            );
            for r in &measured_rows {
                table.push_str(&r.render());
                table.push('\n');
            }
            readme = format!("{head}<!-- {marker}:begin -->{table}<!-- {marker}:end -->{tail}");
            println!("{label}: **{summary}**");
            continue;
        }
        assert!(
            readme.contains(&format!("{label}: **{summary}**")),
            "models/litmus/README.md: the counts of {marker} are `{label}: **{summary}**`"
        );
        assert!(top.contains(&summary), "README.md: the counts of {marker} are {summary}");
    }
    if bless {
        std::fs::write(&readme_path, readme).unwrap();
        return;
    }
    assert!(wrong.is_empty(), "models/litmus/README.md's conformance tables differ:\n{}", wrong.join("\n"));
}

/// The rest of the kernel's primitives compute the kernel's values (one process, one state).
#[test]
fn more_primitives_compute_their_values() {
    let text = "C values2
{ a=ATOMIC_INIT(6); b=1; }
P0(atomic_t *a, int *b, spinlock_t *l, struct srcu_struct *s)
{
	int r0; int r1; int r2; int r3; int r4; int r5; int r6; int r7; int r8; int r9;
	atomic_and(3, a);
	atomic_or(8, a);
	atomic_xor(1, a);
	atomic_andnot(2, a);
	r0 = atomic_fetch_or(4, a);
	r1 = atomic_fetch_and_relaxed(7, a);
	r2 = atomic_fetch_xor(1, a);
	r3 = atomic_fetch_andnot_acquire(4, a);
	r4 = atomic_add_negative(-1, a);
	r5 = atomic_add_unless(a, 5, -1);
	r6 = atomic_add_unless(a, 2, 0);
	smp_store_mb(*b, 7);
	spin_lock(l); r7 = spin_is_locked(l); spin_unlock(l); r8 = spin_is_locked(l);
	r9 = srcu_read_lock(s); barrier(); srcu_read_unlock(s, r9); synchronize_srcu_expedited(s);
}
locations [0:r9]
forall (0:r0=9 /\\ 0:r1=13 /\\ 0:r2=5 /\\ 0:r3=4 /\\ 0:r4=1 /\\ 0:r5=0 /\\ 0:r6=1 /\\ a=1 /\\ b==7 /\\ 0:r7!=0 /\\ 0:r8=0)
";
    let r = run_text(text);
    for o in [&r.loom.observation, &r.sc.observation] {
        assert_eq!((o.outcome, o.positive, o.negative), (Outcome::Always, 1, 0), "{r}");
    }
}

/// A grace period of one srcu_struct waits for that domain's readers only.
#[test]
fn srcu_grace_periods_wait_for_their_own_readers() {
    let text = "C srcu-MP
(* Result: Never *)
{}
P0(int *x, int *y, struct srcu_struct *s1)
{ int r0; int r1; int i; i = srcu_read_lock(s1); r0 = READ_ONCE(*x); r1 = READ_ONCE(*y); srcu_read_unlock(s1, i); }
P1(int *x, int *y, struct srcu_struct *s1, struct srcu_struct *s2)
{ WRITE_ONCE(*y, 1); synchronize_srcu(s1); WRITE_ONCE(*x, 1); }
exists (0:r0=1 /\\ 0:r1=0)
";
    let r = run_text(text);
    assert_eq!(r.loom.observation.outcome, Outcome::Never, "{r}");
    assert!(!r.disagrees());
    let other = run_text(&text.replace("synchronize_srcu(s1)", "synchronize_srcu(s2)").replace("Never", "Sometimes"));
    assert_eq!(other.loom.observation.outcome, Outcome::Sometimes, "{other}");
    assert_eq!(other.sc.observation.outcome, Outcome::Never, "under SC the writes are seen in order anyway");
}

/// As in herd7, an execution where a process waits for a lock that is never released is no
/// execution: the others count, and a test with none left is `DEADLOCK` (`Never 0 0`).
#[test]
fn locks_never_released_drop_the_execution() {
    let text = "C held
(* Result: Never *)
{}
P0(int *x, spinlock_t *s) { spin_lock(s); WRITE_ONCE(*x, 1); }
P1(int *x, spinlock_t *s) { int r1; spin_lock(s); r1 = READ_ONCE(*x); spin_unlock(s); }
exists (1:r1=1)
";
    let r = run_text(text);
    for o in [&r.loom.observation, &r.sc.observation] {
        assert_eq!((o.outcome, o.positive, o.negative), (Outcome::Never, 0, 1), "{r}");
    }
    let both = text.replace("spin_unlock(s); }", "}").replace("Result: Never", "Result: DEADLOCK");
    let r = run_text(&both);
    for o in [&r.loom.observation, &r.sc.observation] {
        assert_eq!((o.positive, o.negative), (0, 0), "{r}");
    }
    assert!(!r.disagrees(), "{r}");
    assert!(run_text(&both.replace("DEADLOCK", "Never")).disagrees(), "a deadlock is no Never");
}

/// `filter` keeps only the final states it holds in; `locations` adds observed variables.
#[test]
fn filter_and_locations_shape_the_states() {
    let sb = SB.replace("(* Result: Sometimes *)\n", "");
    let all = run_text(&sb);
    let filtered = run_text(&sb.replace("exists", "filter (0:r0=0)\nexists"));
    assert_eq!((all.loom.states.len(), filtered.loom.states.len()), (4, 2));
    assert_eq!(filtered.loom.observation.outcome, Outcome::Sometimes);
    let located = run_text(&sb.replace("exists", "locations [x; y]\nexists"));
    assert_eq!(located.loom.states[0].0.len(), 4, "two registers, two locations");
    assert_eq!((located.loom.observation.positive, located.loom.observation.negative), (1, 3));
}

/// The final clause compares two registers (`0:r0=0:r1`), and a register given only in the
/// initial state (`int 0:r1 = 5;`) is the process's register, as in herd7.
#[test]
fn registers_compare_and_come_from_the_initial_state() {
    let text = "C cmp
{ int 0:r1 = 5; }
P0(int *x) { r0 = READ_ONCE(*x); }
P1(int *x) { WRITE_ONCE(*x, 5); }
exists (0:r0=0:r1)
";
    let r = run_text(text);
    for o in [&r.loom.observation, &r.sc.observation] {
        assert_eq!((o.outcome, o.positive, o.negative), (Outcome::Sometimes, 1, 1), "{r}");
    }
}

/// `smp_mb__after_srcu_read_unlock()` orders nothing by itself, and the accesses before an SRCU
/// unlock with those after it (store buffering against a full fence).
#[test]
fn smp_mb_after_srcu_read_unlock_needs_an_unlock() {
    let text = "C srcu-mb
{}
P0(int *x, int *y, struct srcu_struct *s) { int r1; int r2; BODY }
P1(int *x, int *y) { int r3; WRITE_ONCE(*y, 1); smp_mb(); r3 = READ_ONCE(*x); }
exists (0:r2=0 /\\ 1:r3=0)
";
    let alone = text.replace("BODY", "WRITE_ONCE(*x, 1); smp_mb__after_srcu_read_unlock(); r2 = READ_ONCE(*y);");
    assert_eq!(run_text(&alone).loom.observation.outcome, Outcome::Sometimes);
    let after = text.replace(
        "BODY",
        "r1 = srcu_read_lock(s); WRITE_ONCE(*x, 1); srcu_read_unlock(s, r1); smp_mb__after_srcu_read_unlock(); r2 = READ_ONCE(*y);",
    );
    assert_eq!(run_text(&after).loom.observation.outcome, Outcome::Never);
}
