//! LKMM export: C litmus tests for herd7 with the kernel's tools/memory-model.
//!
//! Each export is one shape of one scenario at one revision: the few accesses a verdict rests
//! on, reduced to a handful of processes. Its `Result:` header is what wbcheck predicts for the
//! `exists` clause, taken from the revision's catalogue row (the expected loom verdict, which
//! every matrix run checks against loom) or, for the shapes no revision varies, from the
//! primitive the model uses (the grace period, a lock, a release/acquire pair). The comment
//! says which, what was reduced and why the reduction keeps the outcome, which accesses are
//! plain as in the kernel, and what LKMM cannot express. herd7 is the independent check:
//! [`judge`] runs it and compares its `Observation` lines with the `Result:` lines.
//!
//! Conventions shared by every export: linux-kernel.def has no bitops, so `test_bit` is
//! `READ_ONCE`, `test_and_set_bit`/`test_and_clear_bit` are `xchg()` on a one-bit int (fully
//! ordered, as the kernel's value-returning bitops), `set_bit`/`clear_bit` are `WRITE_ONCE`
//! (unordered, as the kernel's); the per-CPU operations of `percpu_counter_add_batch` (a local
//! compare-exchange, atomic against its own CPU) are relaxed atomics; structs are flattened
//! into one location per field; loops are unrolled to the iterations the outcome needs.

pub mod audit;
mod bdev_slots;
mod dontcache_accounting;
mod dontcache_kick;
pub mod herd7;
pub mod judge;
mod percpu_counter;
mod render;
pub mod run;
mod wb_pin;

pub use render::{Basis, Litmus, Outcome, Prediction, Proc};

use crate::scenario::unknown;
use wb_core::revision::Revision;

/// Every export, in the order of the scenarios and their catalogues.
pub fn exports() -> Vec<Litmus> {
    let mut all = dontcache_kick::exports();
    all.extend(wb_pin::exports());
    all.extend(dontcache_accounting::exports());
    all.extend(percpu_counter::exports());
    all.extend(bdev_slots::exports());
    all
}

/// The scenarios with a litmus export.
pub fn scenarios() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = exports().iter().map(|l| l.scenario).collect();
    names.dedup();
    names
}

/// The litmus test of `scenario` at `revision` in `shape` (the scenario's core shape when
/// `None`), or an error naming the valid values.
pub fn export(scenario: &str, revision: &str, shape: Option<&str>) -> Result<String, String> {
    let all = exports();
    let of_scenario: Vec<&Litmus> = all.iter().filter(|l| l.scenario == scenario).collect();
    if of_scenario.is_empty() {
        return Err(unknown("scenario for litmus export", scenario, &scenarios()));
    }
    let of_revision: Vec<&&Litmus> = of_scenario.iter().filter(|l| l.revision == revision).collect();
    if of_revision.is_empty() {
        let mut names: Vec<&str> = of_scenario.iter().map(|l| l.revision).collect();
        names.dedup();
        return Err(unknown("revision", revision, &names) + " for litmus export of " + scenario);
    }
    let found = of_revision.iter().find(|l| l.shape == shape);
    match found {
        Some(l) => Ok(l.render()),
        None => {
            let shapes: Vec<&str> = of_revision.iter().map(|l| l.shape.unwrap_or("core")).collect();
            let asked = shape.unwrap_or("core");
            Err(unknown("shape", asked, &shapes) + &format!(" for {scenario} {revision}"))
        }
    }
}

/// Whether loom is expected to report `property` for `rev`: the catalogue's loom column.
pub(crate) fn loom_reports<R: Revision>(rev: R, property: &str) -> bool {
    rev.row().expected[0].violated.contains(&property)
}

/// herd7 7.58's answers on every export, as committed in `models/litmus/herd7-answers.txt`: one
/// line per export and LKMM copy, `NAME MODEL OUTCOME POS NEG [race]` (POS and NEG count
/// executions, as herd7's `Observation` line does). `models/tests/litmus.rs` keeps the file equal
/// to herd7's output where herd7 is installed, and every export's `Result:` line in agreement
/// with it everywhere.
pub const HERD7_ANSWERS: &str = include_str!("../../litmus/herd7-answers.txt");

/// The LKMM copies the answers were measured with: Linux 6.12's and the current one.
pub const HERD7_MODELS: [&str; 2] = ["lkmm-6.12", "lkmm-head"];

/// The recorded answers: (export, model, observation).
pub fn herd7_answers() -> Result<Vec<(String, String, judge::Observation)>, String> {
    let mut out = Vec::new();
    for (n, line) in HERD7_ANSWERS.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty()) {
        let bad = || format!("herd7-answers.txt line {}: {line:?}", n + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, model, outcome, pos, neg, rest @ ..] = words.as_slice() else { return Err(bad()) };
        let observation = judge::Observation {
            name: name.to_string(),
            outcome: Outcome::from_name(outcome).ok_or_else(bad)?,
            positive: pos.parse().map_err(|_| bad())?,
            negative: neg.parse().map_err(|_| bad())?,
            data_race: match rest {
                [] => false,
                ["race"] => true,
                _ => return Err(bad()),
            },
            flags: Vec::new(),
        };
        out.push((name.to_string(), model.to_string(), observation));
    }
    Ok(out)
}

/// The table of the READMEs: every export with its shape, prediction, what the prediction
/// rests on, and herd7's recorded answer.
pub fn readme_table() -> String {
    let answers = herd7_answers().unwrap_or_default();
    let mut out =
        String::from("| file | shape | Result | rests on | herd7 7.58 (LKMM 6.12, current) |\n|---|---|---|---|---|\n");
    for l in exports() {
        let cells: Vec<String> = HERD7_MODELS
            .iter()
            .map(|m| match answers.iter().find(|(n, model, _)| *n == l.name() && model == m) {
                Some((_, _, o)) => {
                    let race = if o.data_race { " race" } else { "" };
                    format!("{} {}/{}{race}", o.outcome.name(), o.positive, o.negative)
                }
                None => "not run".into(),
            })
            .collect();
        let herd = if cells.windows(2).all(|w| w[0] == w[1]) { cells[0].clone() } else { cells.join("; ") };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {herd} |\n",
            l.file_name(),
            l.title,
            l.prediction,
            l.basis.short()
        ));
    }
    out
}

/// Statement lines: (code, kernel code it stands for).
pub(crate) type Lines = Vec<(String, String)>;

pub(crate) fn lines(pairs: &[(&str, &str)]) -> Lines {
    pairs.iter().map(|(c, k)| (c.to_string(), k.to_string())).collect()
}

/// `unlocked_inode_to_wb_begin`: the read section, the acquire load of `I_WB_SWITCH` into
/// `state`, the i_pages lock when it is set, and the plain load of `inode->i_wb` into `wb`.
pub(crate) fn wb_section_begin(state: &str, wb: &str) -> Lines {
    lines(&[
        ("rcu_read_lock();", "unlocked_inode_to_wb_begin"),
        (&format!("{state} = smp_load_acquire(i_state);"), "cookie->locked = ... & I_WB_SWITCH"),
        (&format!("if ({state} == 1)"), ""),
        ("\tspin_lock(i_pages);", "xa_lock_irqsave(&mapping->i_pages)"),
        (&format!("{wb} = *i_wb;"), "return inode->i_wb (plain)"),
    ])
}

/// `unlocked_inode_to_wb_end` for the section [`wb_section_begin`] opened.
pub(crate) fn wb_section_end(state: &str) -> Lines {
    lines(&[
        (&format!("if ({state} == 1)"), "unlocked_inode_to_wb_end"),
        ("\tspin_unlock(i_pages);", ""),
        ("rcu_read_unlock();", ""),
    ])
}

/// The cgroup wb switch up to its folio scan: `inode_switch_wbs` sets `I_WB_SWITCH` (1), the
/// switch runs after a grace period (`queue_rcu_work`), and `inode_do_switch_wbs` takes the
/// i_pages lock.
pub(crate) fn switch_begin() -> Lines {
    lines(&[
        ("WRITE_ONCE(*i_state, 1);", "inode_switch_wbs: I_WB_SWITCH (under i_lock)"),
        ("synchronize_rcu();", "queue_rcu_work: the switch runs after a GP"),
        ("spin_lock(i_pages);", "inode_do_switch_wbs: xa_lock_irq"),
    ])
}

/// The end of `inode_do_switch_wbs`: publish the new wb (plain, as the kernel), clear
/// `I_WB_SWITCH` with a release (2: cleared), drop the lock.
pub(crate) fn switch_end() -> Lines {
    lines(&[
        ("*i_wb = wb2;", "inode->i_wb = new_wb (plain)"),
        ("smp_store_release(i_state, 2);", "clear I_WB_SWITCH, paired with the acquire"),
        ("spin_unlock(i_pages);", ""),
    ])
}

/// What the exports that use the switch say about `i_state`.
pub(crate) const I_STATE_NOTE: &str = "i_state is 0 before the switch, 1 with I_WB_SWITCH set and 2 once \
    the switch cleared it (one value per state so that a clause can tell the initial clear flag from the \
    cleared one).";
