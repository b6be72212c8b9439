//! Control tests for the I_WB_SWITCH handshake between the stat updaters' wb sections
//! (`unlocked_inode_to_wb_begin/end`, core/src/inode.rs, include/linux/backing-dev.h) and the
//! cgroup wb switch (`inode_switch_wbs`, which sets I_WB_SWITCH, and `inode_switch_wbs_work_fn`,
//! which waits a grace period, then under the i_pages lock moves the stats, publishes `i_wb` and
//! clears I_WB_SWITCH; core/src/fs_writeback.rs), in both directions.
//!
//! The roles: the reader stands for the stat updaters inside a wb section
//! (`folio_clear_dirty_for_io`, `__folio_cancel_dirty`, `folio_end_dropbehind`,
//! `filemap_dontcache_kick_writeback`); the switcher for a foreign-writeback or memcg-offline
//! switch (`inode_switch_wbs` from `wbc_detach_inode` / `cleanup_offline_cgwb`, then its work);
//! the page-cache lock holder for any i_pages xa_lock section (`__folio_mark_dirty`,
//! `__folio_start_writeback`, `filemap_remove_folio`).
//!
//! - Too weak: `control_wb_switch_reader_never_sees_the_switch_half_done`: a reader that clears a
//!   dirty DONTCACHE folio's count on the wb its section gives, racing a switch that moves the
//!   folio's count to the new wb, leaves both wbs at zero: it either updates the old wb before the
//!   transfer (which then sees the folio clean) or the new one after it (fails if the reader
//!   ignores I_WB_SWITCH, or the switch does not wait for a grace period).
//! - Too strong: `control_wb_switch_rcu_reader_runs_beside_the_page_cache_lock`: with I_WB_SWITCH
//!   clear the section takes no lock: some execution has the reader inside its section while
//!   another task holds the i_pages lock (fails if the section always locks);
//!   `control_wb_switch_reader_runs_during_the_switch_on_the_locked_path`: some execution has a
//!   reader that saw I_WB_SWITCH set take the locked path and use the old wb, during the switch
//!   (fails if a reader waits for the switch to finish); `control_wb_switch_reader_after_the_switch_sees_the_new_wb`:
//!   a reader that starts after the switch finished gets the new wb, unlocked (fails if the switch
//!   leaves I_WB_SWITCH set or does not publish `i_wb`).

mod control_support;

use control_support::{explore, flag, task};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use wb_core::folio::Folio;
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use wb_core::page_writeback::{filemap_dirty_folio, folio_clear_dirty_for_io};
use wb_core::sync::{Loom, Platform};
use wb_core::trace::Trace;
use wb_core::wb::{wb_get, Bdi, WbStatItem};

/// Loom's preemption bound for the tests that run the whole switch.
const SWITCH_PREEMPTIONS: Option<usize> = Some(2);

/// A bdi with cgroup wbs 1 and 2, and an inode on wb1 (holding its association reference) with
/// one single-page folio, dirtied as a DONTCACHE folio (counted in wb1's WB_DONTCACHE_DIRTY) if
/// `dirty`.
fn setup(trace: &Arc<Trace>, dirty: bool) -> (Arc<Bdi<Loom>>, Arc<Inode<Loom>>) {
    let ctx = task(trace, "setup", 0);
    let bdi = Arc::new(Bdi::<Loom>::new(2, 1, 8, 4));
    let folio = Arc::new(Folio::new(0, 1, true));
    let inode = Arc::new(Inode::new(0, bdi.clone(), 1, true, vec![folio.clone()]));
    wb_get(&ctx, bdi.wb(1));
    if dirty {
        filemap_dirty_folio(&ctx, &inode, &folio);
    }
    (bdi, inode)
}

/// The switch to wb2, as the switcher runs it.
fn switch_to_wb2(ctx: &wb_core::ctx::Ctx<Loom>, inode: &Inode<Loom>) {
    if inode_switch_wbs(ctx, inode, 2) {
        inode_switch_wbs_work_fn(ctx, inode, 2);
    }
}

/// The reader cleans the dirty DONTCACHE folio (`folio_clear_dirty_for_io` under the folio lock:
/// WB_DONTCACHE_DIRTY -= 1 on its section's wb) while the inode switches to wb2 (moving the
/// count of still-dirty DONTCACHE folios). After both, both wbs' counts are 0.
#[test]
fn control_wb_switch_reader_never_sees_the_switch_half_done() {
    let explored = explore(SWITCH_PREEMPTIONS, || {
        let trace = Arc::new(Trace::disabled());
        let (bdi, inode) = setup(&trace, true);
        assert_eq!(bdi.wb(1).stat(WbStatItem::DontcacheDirty).raw_total(), 1);
        let reader = {
            let (trace, inode) = (trace.clone(), inode.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "reader", 0);
                let folio = &inode.folios[0];
                let _locked = folio.lock();
                folio_clear_dirty_for_io(&ctx, &inode, folio);
            })
        };
        let switcher = {
            let (trace, inode) = (trace.clone(), inode.clone());
            Loom::spawn(move || switch_to_wb2(&task(&trace, "switcher", 0), &inode))
        };
        Loom::join(reader);
        Loom::join(switcher);
        let counts = [1, 2].map(|w| bdi.wb(w).stat(WbStatItem::DontcacheDirty).raw_total());
        assert_eq!(
            counts,
            [0, 0],
            "WB_DONTCACHE_DIRTY of wb1, wb2 = {counts:?} after the folio was cleaned and the inode switched: \\
             the reader updated a wb the switch had already moved the count from (it saw the switch half done)"
        );
        assert!(trace.detected().is_empty(), "{:?}", trace.detected());
        inode.wb_id() == 2
    });
    assert!(explored.observed == explored.executions && explored.executions > 10, "{explored:?}");
}

/// No switch: a task holds the i_pages lock (and marks it) while the reader runs a wb section;
/// some execution has the reader read the mark, i.e. run its section inside the holder's.
#[test]
fn control_wb_switch_rcu_reader_runs_beside_the_page_cache_lock() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let (bdi, inode) = setup(&trace, false);
        let holding = flag();
        let holder = {
            let (trace, inode, holding) = (trace.clone(), inode.clone(), holding.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "i_pages holder", 0);
                let _xa = inode.i_pages.lock_irqsave(&ctx, "holder: xa_unlock_irqrestore");
                holding.store(1, Relaxed);
                holding.store(0, Relaxed);
            })
        };
        let ctx = task(&trace, "reader", 0);
        let (wb, cookie) = unlocked_inode_to_wb_begin(&ctx, &inode);
        let overlapped = holding.load(Relaxed) == 1;
        assert_eq!(wb.id, 1);
        unlocked_inode_to_wb_end(&ctx, &inode, cookie);
        drop(ctx);
        Loom::join(holder);
        drop(bdi);
        overlapped
    });
    assert!(
        explored.observed > 0,
        "in none of {} executions did a wb section with I_WB_SWITCH clear run while another task held the \\
         i_pages lock: the section serialises with the page cache lock",
        explored.executions
    );
}

/// The reader runs a wb section while the inode switches; some execution has it see I_WB_SWITCH
/// set, take the i_pages lock and get the old wb (before the transfer): readers are not held
/// off for the length of the switch.
#[test]
fn control_wb_switch_reader_runs_during_the_switch_on_the_locked_path() {
    let explored = explore(SWITCH_PREEMPTIONS, || {
        let trace = Arc::new(Trace::disabled());
        let (_bdi, inode) = setup(&trace, false);
        let switcher = {
            let (trace, inode) = (trace.clone(), inode.clone());
            Loom::spawn(move || switch_to_wb2(&task(&trace, "switcher", 0), &inode))
        };
        let ctx = task(&trace, "reader", 0);
        let (wb, cookie) = unlocked_inode_to_wb_begin(&ctx, &inode);
        let during = cookie.locked() && wb.id == 1;
        unlocked_inode_to_wb_end(&ctx, &inode, cookie);
        drop(ctx);
        Loom::join(switcher);
        assert!(trace.detected().is_empty(), "{:?}", trace.detected());
        during
    });
    assert!(
        explored.observed > 0,
        "in none of {} executions did a reader that saw I_WB_SWITCH set run its section (locked) on the old wb \\
         during the switch: readers wait for the switch to finish",
        explored.executions
    );
}

/// The switcher switches the inode to wb2 and then signals; the reader, once signalled, runs a
/// wb section: it must get wb2, without taking the i_pages lock.
#[test]
fn control_wb_switch_reader_after_the_switch_sees_the_new_wb() {
    let explored = explore(SWITCH_PREEMPTIONS, || {
        let trace = Arc::new(Trace::disabled());
        let (_bdi, inode) = setup(&trace, false);
        let switcher = {
            let (trace, inode) = (trace.clone(), inode.clone());
            Loom::spawn(move || switch_to_wb2(&task(&trace, "switcher", 0), &inode))
        };
        Loom::join(switcher);
        let ctx = task(&trace, "reader", 0);
        let (wb, cookie) = unlocked_inode_to_wb_begin(&ctx, &inode);
        let (id, locked) = (wb.id, cookie.locked());
        unlocked_inode_to_wb_end(&ctx, &inode, cookie);
        drop(ctx);
        assert_eq!(
            (id, locked),
            (2, false),
            "a wb section after the switch finished got wb{id} (locked: {locked}), not wb2 unlocked"
        );
        false
    });
    assert!(explored.executions >= 1, "{explored:?}");
}
