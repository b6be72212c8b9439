//! dontcache-accounting: the five WB_DONTCACHE_DIRTY drift pairs of v7, one export each.
//!
//! Each PG_ flag is its own int here (`dirty`, `dropbehind`): the kernel's bitops on one flags
//! word are fully ordered RMWs (`xchg`) or plain-bit tests and sets (`READ_ONCE`/`WRITE_ONCE`) on
//! distinct bits, and every pair below is a race between whole steps that sequential
//! consistency already allows, so splitting the word removes no outcome the clause needs. The
//! fixes are not exported: `v7-partial-flag-snapshot` and `v7-fix-counted-bit` decide from the
//! old flags word one RMW returns (a fetch-and/fetch-or on several bits), which linux-kernel.def
//! cannot write (its closest form is a compare-exchange loop, and litmus tests have no loops).

use super::{
    lines, loom_reports, switch_begin, switch_end, wb_section_begin, wb_section_end, Basis, Lines, Litmus, Prediction,
    Proc, I_STATE_NOTE,
};
use crate::dontcache_accounting::NAME;
use wb_core::property::COUNTER_EXACT;
use wb_core::revision::AccountingRevision;

pub fn exports() -> Vec<Litmus> {
    vec![lookup_dirtier(), lookup_cleaner(), lookup_switch(), redirty_switch(), migrate_switch()]
}

/// v7's `__filemap_get_folio_mpol` lookup (not FGP_DONTCACHE): the clear of PG_dropbehind, the
/// dirty test, and the decrement `dec` (lines) when both were set.
fn lookup(clear: &str, dirty: &str, dec: Lines) -> Lines {
    let mut l = lines(&[
        (&format!("{clear} = xchg(dropbehind, 0);"), "lookup: folio_test_clear_dropbehind"),
        (&format!("if ({clear} == 1) {{"), ""),
        (&format!("\t{dirty} = READ_ONCE(*dirty);"), "folio_test_dirty"),
        (&format!("\tif ({dirty} == 1) {{"), "(and mapping_can_writeback)"),
    ]);
    l.extend(dec.into_iter().map(|(c, k)| (format!("\t\t{c}"), k)));
    l.extend(lines(&[("\t}", ""), ("}", "")]));
    l
}

/// `filemap_dirty_folio` as called from `caller`: set PG_dirty, then on the clean-to-dirty
/// transition account under the i_pages lock on `wb` (loaded from `inode->i_wb` into `load`
/// under the lock when given).
fn dirtier(caller: &str, load: Option<&str>, wb: &str) -> Lines {
    let mut l = lines(&[
        ("r0 = xchg(dirty, 1);", &format!("{caller}: folio_test_set_dirty")),
        ("if (r0 == 0) {", ""),
        ("\tspin_lock(i_pages);", "__folio_mark_dirty: xa_lock_irqsave"),
        ("\tr1 = READ_ONCE(*dropbehind);", "folio_account_dirtied: folio_test_dropbehind"),
    ]);
    if let Some(reg) = load {
        l.extend(lines(&[(&format!("\t{reg} = *i_wb;"), "inode_to_wb (stable under the i_pages lock)")]));
    }
    l.extend(lines(&[
        ("\tif (r1 == 1)", ""),
        (&format!("\t\tatomic_inc({wb});"), "wb_stat_mod(wb, WB_DONTCACHE_DIRTY, nr)"),
        ("\tspin_unlock(i_pages);", ""),
        ("}", ""),
    ]));
    l
}

/// A lookup whose decrement needs no wb section (no switch in the export): `dc` is the wb's count.
fn lookup_plain_dec() -> Lines {
    lines(&[("atomic_dec(dc);", "wb_stat_mod(wb, WB_DONTCACHE_DIRTY, -nr)")])
}

/// The decrement inside `unlocked_inode_to_wb_begin/end`, on the wb it finds.
fn section_dec(state: &str, wb: &str) -> Lines {
    let mut l = wb_section_begin(state, wb);
    l.extend(lines(&[(&format!("atomic_dec({wb});"), "wb_stat_mod(wb, WB_DONTCACHE_DIRTY, -nr)")]));
    l.extend(wb_section_end(state));
    l
}

/// The switch's transfer test on a folio's flags (`dirty_reg`, `db_reg` loaded), moving its page.
fn transfer(dirty_reg: &str, db_reg: &str) -> Lines {
    lines(&[
        (&format!("if ({dirty_reg} == 1) {{"), "transfer: folio_test_dirty"),
        (&format!("\tif ({db_reg} == 1) {{"), "&& folio_test_dropbehind"),
        ("\t\tatomic_dec(wb1);", "wb_stat_mod(old_wb, WB_DONTCACHE_DIRTY, -nr)"),
        ("\t\tatomic_inc(wb2);", "wb_stat_mod(new_wb, WB_DONTCACHE_DIRTY, nr)"),
        ("\t}", ""),
        ("}", ""),
    ])
}

fn basis(finding: usize) -> Basis {
    let fails = loom_reports(AccountingRevision::V7, COUNTER_EXACT);
    Basis {
        short: format!("loom: {} (finding {finding}); sequential", if fails { "fail (counter-exact)" } else { "pass" }),
        long: format!(
            "loom's verdict on counter-exact for v7, {}: this pair is finding {finding} of the scenario (`wbcheck \
             explain dontcache-accounting`). The outcome needs no reordering: the interleaving in the note is \
             sequentially consistent.",
            if fails { "fail" } else { "pass" }
        ),
    }
}

fn export(
    shape: &'static str,
    title: &str,
    finding: usize,
    notes: Vec<String>,
    procs: Vec<Proc>,
    init: Vec<&'static str>,
    exists: &str,
) -> Litmus {
    let rev = AccountingRevision::V7;
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: Some(shape),
        title: title.into(),
        summary: rev.summary(),
        prediction: Prediction::sometimes_if(loom_reports(rev, COUNTER_EXACT)),
        basis: basis(finding),
        notes,
        init,
        procs,
        exists: exists.into(),
    }
}

const DC_NOTE: &str = "dc is the wb's WB_DONTCACHE_DIRTY (one relaxed atomic for the per-CPU counter); it \
    starts at 1 for another folio's page, so a drift shows as 0 or 2.";

fn lookup_dirtier() -> Litmus {
    let p0 = Proc::new("int *dirty, int *dropbehind, int *dc, spinlock_t *i_pages", &["int r0", "int r1"])
        .lines(dirtier("filemap_dirty_folio", None, "dc"));
    let p1 = Proc::new("int *dirty, int *dropbehind, int *dc", &["int r2", "int r3"]).lines(lookup(
        "r2",
        "r3",
        lookup_plain_dec(),
    ));
    export(
        "lookup-dirtier",
        "an unlocked lookup against a dirtier: the counter goes negative",
        1,
        vec![
            "A clean DONTCACHE folio (PG_dropbehind set). P0 dirties it under the folio lock (a buffered write, \
             a write fault's folio_mark_dirty); P1 is a lookup that does not take the folio lock (filemap_fault's \
             first lookup, read_cache_folio). The exists clause (dc=0): P0 set PG_dirty, P1 cleared \
             PG_dropbehind, saw PG_dirty and decremented, then P0 accounted under the i_pages lock, saw \
             PG_dropbehind clear and did not increment: -nr, permanently."
                .into(),
            format!("{DC_NOTE} Reduced: the folio lock (P1 does not take it), the wb section of P1's decrement (no switch here), the inode's dirtying."),
        ],
        vec![p0, p1],
        vec!["dirty=0", "dropbehind=1", "dc=1"],
        "dc=0",
    )
}

fn lookup_cleaner() -> Litmus {
    let p0 = Proc::new("int *dirty, int *dropbehind, int *dc", &["int r0", "int r1"])
        .line("r0 = xchg(dirty, 0);", "folio_clear_dirty_for_io: folio_test_clear_dirty")
        .line("if (r0 == 1) {", "")
        .line("\tr1 = READ_ONCE(*dropbehind);", "folio_account_cleaned: folio_test_dropbehind")
        .line("\tif (r1 == 1)", "")
        .line("\t\tatomic_dec(dc);", "wb_stat_mod(wb, WB_DONTCACHE_DIRTY, -nr)")
        .line("}", "");
    let p1 = Proc::new("int *dirty, int *dropbehind, int *dc", &["int r2", "int r3"]).lines(lookup(
        "r2",
        "r3",
        lookup_plain_dec(),
    ));
    export(
        "lookup-cleaner",
        "an unlocked lookup against a cleaner: the counter leaks",
        2,
        vec![
            "A dirty DONTCACHE folio, counted (dc=2: its page and another). P0 cleans it (writeback's \
             folio_clear_dirty_for_io; truncation's __folio_cancel_dirty is the same shape); P1 is an unlocked \
             lookup. The exists clause (dc=2): P0 cleared PG_dirty, P1 cleared PG_dropbehind and saw PG_dirty \
             clear (no decrement), P0 saw PG_dropbehind clear (no decrement): +nr, permanently. Both \
             decrementing is forbidden: each side's test follows its fully ordered clear (store buffering \
             with full barriers)."
                .into(),
            "Reduced: the cleaner's wb section and folio lock (no switch; P1 does not take the lock), the \
             writeback itself."
                .into(),
        ],
        vec![p0, p1],
        vec!["dirty=1", "dropbehind=1", "dc=2"],
        "dc=2",
    )
}

fn switcher(params: &'static str, regs: &'static [&'static str], scan: Lines) -> Proc {
    Proc::new(params, regs).lines(switch_begin()).lines(scan).lines(switch_end())
}

/// The switch over one DIRTY-marked folio (the mark set throughout): its transfer test.
fn one_folio_switcher() -> Proc {
    let mut scan = lines(&[
        ("r4 = READ_ONCE(*dirty);", "inode_do_switch_wbs: the DIRTY-marked folio"),
        ("r5 = READ_ONCE(*dropbehind);", ""),
    ]);
    scan.extend(transfer("r4", "r5"));
    switcher(
        "int **i_wb, int *i_state, int *dirty, int *dropbehind, int *wb1, int *wb2, spinlock_t *i_pages",
        &["int r4", "int r5"],
        scan,
    )
}

fn lookup_switch() -> Litmus {
    let p0 = Proc::new(
        "int **i_wb, int *i_state, int *dirty, int *dropbehind, spinlock_t *i_pages",
        &["int r0", "int r1", "int r2", "int *r3"],
    )
    .lines(lookup("r0", "r1", section_dec("r2", "r3")));
    let p1 = one_folio_switcher();
    export(
        "lookup-switch",
        "a lookup's clear outside its wb section across a cgroup wb switch",
        3,
        vec![
            "A dirty DONTCACHE folio counted on wb1. P0 is a lookup, unlocked or a buffered write's FGP_LOCK one \
             (the switch never takes the folio lock): it clears PG_dropbehind outside any wb section, then \
             decrements inside unlocked_inode_to_wb_begin/end. P1 is the cgroup wb switch moving the inode to \
             wb2; it moves the page's count only if the folio is dirty and dropbehind. The exists clause \
             (wb1=1): P0 cleared the flag, the switch saw it clear and left the count on wb1, and P0's section \
             then found wb2 and decremented it (wb2=-1)."
                .into(),
            format!("Each wb is one int, its WB_DONTCACHE_DIRTY. {I_STATE_NOTE} Reduced: the switch's i_lock, the other i_state bits, the folio's DIRTY mark (set throughout)."),
        ],
        vec![p0, p1],
        vec!["i_wb=wb1", "i_state=0", "dirty=1", "dropbehind=1", "wb1=1", "wb2=0"],
        "wb1=1",
    )
}

fn redirty_switch() -> Litmus {
    let p0 =
        Proc::new("int **i_wb, int *dirty, int *dropbehind, spinlock_t *i_pages", &["int r0", "int r1", "int *r2"])
            .lines(dirtier("folio_redirty_for_writepage", Some("r2"), "r2"));
    let p1 = one_folio_switcher();
    export(
        "redirty-switch",
        "folio_redirty_for_writepage across a cgroup wb switch",
        4,
        vec![
            "A DONTCACHE folio under writeback: folio_clear_dirty_for_io has cleared PG_dirty and counted the \
             page out of wb1 (wb1=0), and the DIRTY mark stays until writeback starts. The ->writepage cannot \
             write now (ext4 with the journal busy, btrfs, f2fs), so P0 redirties it: folio_test_set_dirty, \
             then the accounting under the i_pages lock. P1 is the cgroup wb switch. The exists clause (wb2=2): \
             the switch ran between P0's set and its accounting, saw the mark, PG_dirty and PG_dropbehind and \
             moved a page wb1 no longer counted (wb1=-1), then P0 charged wb2 on top of the moved page."
                .into(),
            format!("Each wb is one int, its WB_DONTCACHE_DIRTY. {I_STATE_NOTE} Reduced: the clear before the switch began (the initial state), the folio lock (the switch never takes it), the inode's dirtying."),
        ],
        vec![p0, p1],
        vec!["i_wb=wb1", "i_state=0", "dirty=0", "dropbehind=1", "wb1=0", "wb2=0"],
        "wb2=2",
    )
}

fn migrate_switch() -> Litmus {
    let mut p0 = Proc::new(
        "int **i_wb, int *i_state, int *entry, int *old_dirty, int *new_dirty, int *new_dropbehind, spinlock_t *i_pages",
        &["int r0", "int r1", "int r2", "int *r3"],
    )
    .line("spin_lock(i_pages);", "__folio_migrate_mapping: xas_lock_irq")
    .line("WRITE_ONCE(*entry, 1);", "the page cache now holds newfolio")
    .line("WRITE_ONCE(*old_dirty, 0);", "PG_dirty moves: folio_clear_dirty(folio)")
    .line("WRITE_ONCE(*new_dirty, 1);", "folio_set_dirty(newfolio)")
    .line("spin_unlock(i_pages);", "")
    .line("WRITE_ONCE(*new_dropbehind, 1);", "folio_migrate_flags: folio_set_dropbehind(newfolio)")
    .line("r0 = xchg(new_dirty, 0);", "later writeback: folio_clear_dirty_for_io")
    .line("if (r0 == 1) {", "")
    .line("\tr1 = READ_ONCE(*new_dropbehind);", "folio_account_cleaned: folio_test_dropbehind")
    .line("\tif (r1 == 1) {", "");
    p0 = p0
        .lines(section_dec("r2", "r3").into_iter().map(|(c, k)| (format!("\t\t{c}"), k)))
        .line("\t}", "")
        .line("}", "");
    let mut scan = lines(&[
        ("r4 = READ_ONCE(*entry);", "inode_do_switch_wbs: the folio in the cache"),
        ("if (r4 == 0) {", ""),
        ("\tr5 = READ_ONCE(*old_dirty);", ""),
        ("\tr6 = READ_ONCE(*old_dropbehind);", ""),
        ("} else {", ""),
        ("\tr5 = READ_ONCE(*new_dirty);", ""),
        ("\tr6 = READ_ONCE(*new_dropbehind);", ""),
        ("}", ""),
    ]);
    scan.extend(transfer("r5", "r6"));
    let p1 = switcher(
        "int **i_wb, int *i_state, int *entry, int *old_dirty, int *old_dropbehind, int *new_dirty, int *new_dropbehind, int *wb1, int *wb2, spinlock_t *i_pages",
        &["int r4", "int r5", "int r6"],
        scan,
    );
    export(
        "migrate-switch",
        "migration of a dirty DONTCACHE folio across a cgroup wb switch (6.14 and later)",
        5,
        vec![
            "A dirty DONTCACHE folio counted on wb1. P0 migrates it (compaction, NUMA balancing, memory \
             offlining): __folio_migrate_mapping replaces the page-cache entry and moves PG_dirty under the \
             i_pages lock, and folio_migrate_flags copies PG_dropbehind after the lock is dropped; later the \
             new folio is written back and counted out on the wb its section finds. P1 is the cgroup wb switch. \
             The exists clause (wb1=1): the switch ran between the unlock and the flag copy, saw the new folio \
             dirty but not dropbehind and left the count on wb1; the writeback then decremented wb2 (wb2=-1)."
                .into(),
            format!("Each wb is one int, its WB_DONTCACHE_DIRTY; entry says which folio the page cache holds (0: the old, 1: the new). {I_STATE_NOTE} Reduced: the folio references and locks of migration, the old folio's PG_dropbehind (set; it is freed), the DIRTY mark, the writeback's folio lock."),
        ],
        vec![p0, p1],
        vec![
            "i_wb=wb1",
            "i_state=0",
            "entry=0",
            "old_dirty=1",
            "old_dropbehind=1",
            "new_dirty=0",
            "new_dropbehind=0",
            "wb1=1",
            "wb2=0",
        ],
        "wb1=1",
    )
}
