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

/// herd7 7.58's verdicts on the exports it has been run on (LKMM from Debian linux-source-6.12's
/// tools/memory-model and from herdtools7's 2026 copy gave the same): outcome, positive and
/// negative witnesses. Every other export's Result line is a prediction.
pub const MEASURED: &[(&str, Outcome, u64, u64)] = &[
    ("dontcache-kick+v7", Outcome::Never, 0, 3),
    ("dontcache-kick+v7-posted", Outcome::Never, 0, 3),
    ("dontcache-kick+v7-no-mb", Outcome::Never, 0, 3),
    ("dontcache-kick+v7-posted-no-mb", Outcome::Sometimes, 1, 3),
    ("dontcache-kick+v5-late-clear", Outcome::Sometimes, 1, 3),
    ("dontcache-kick+v5-approx-read", Outcome::Sometimes, 1, 1),
    ("dontcache-kick+v7-fix-kick-hold+first-dirty", Outcome::Never, 0, 4),
];

/// The table of the READMEs: every export with its shape, prediction, what the prediction
/// rests on, and herd7's measured verdict where there is one.
pub fn readme_table() -> String {
    let mut out = String::from("| file | shape | Result | rests on | herd7 7.58 |\n|---|---|---|---|---|\n");
    for l in exports() {
        let herd = match MEASURED.iter().find(|m| m.0 == l.name()) {
            Some((_, outcome, pos, neg)) => format!("{} {pos}/{neg} (measured)", outcome.name()),
            None => "not run: prediction".into(),
        };
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
