//! `struct inode` with its `struct address_space` (one object here: the models never need them
//! apart): `i_state`, `i_wb`, the i_pages xa_lock, the page-cache folios, and the RCU/xa_lock
//! protocol that reads `i_wb` while a cgroup wb switch may be in progress.

use crate::bitops::BitWord;
use crate::ctx::Ctx;
use crate::folio::Folio;
use crate::sync::{Atomic, Ordering, Platform, SpinGuard, SpinLock};
use crate::wb::{Bdi, Wb};
use std::sync::Arc;

/// `I_DIRTY_PAGES` in `i_state`.
pub const I_DIRTY_PAGES: u32 = 2;
/// `I_WB_SWITCH` in `i_state`: a cgroup wb switch is in progress; RCU-mode stat updaters must
/// take the i_pages lock.
pub const I_WB_SWITCH: u32 = 12;

pub struct Inode<P: Platform> {
    pub ino: u32,
    /// `inode->i_state`.
    pub i_state: BitWord<P>,
    /// `inode->i_lock`.
    pub i_lock: SpinLock<P, ()>,
    /// The `mapping->i_pages` xa_lock (taken irqsave by the accounting paths).
    pub i_pages: SpinLock<P, ()>,
    /// The page-table lock of the one mapping of the file's folios in the models: a dirtier
    /// that holds only this lock (zap_pte_range) runs all of `filemap_dirty_folio` under it, and
    /// `unmap_mapping_folio` (truncation, invalidation) takes it to remove the PTE.
    pub ptl: SpinLock<P, ()>,
    /// `inode->i_wb`: the id of the wb in `bdi`.
    i_wb: P::AtomicUsize,
    pub bdi: Arc<Bdi<P>>,
    /// `mapping_can_writeback()`: the bdi has BDI_CAP_WRITEBACK.
    can_writeback: bool,
    /// The folios in the page cache (fixed when the model is built).
    pub folios: Vec<Arc<Folio<P>>>,
}

impl<P: Platform> Inode<P> {
    /// An inode attached to `bdi.wb(wb)` (the caller accounts the association reference).
    pub fn new(ino: u32, bdi: Arc<Bdi<P>>, wb: usize, can_writeback: bool, folios: Vec<Arc<Folio<P>>>) -> Self {
        Inode {
            ino,
            i_state: BitWord::new(0),
            i_lock: SpinLock::new(()),
            i_pages: SpinLock::new(()),
            ptl: SpinLock::new(()),
            i_wb: P::AtomicUsize::new(wb),
            bdi,
            can_writeback,
            folios,
        }
    }

    /// `inode_to_wb()`: a plain read of `i_wb`, stable for a caller holding the i_pages lock,
    /// `i_lock` or the wb's `list_lock` (or inside an RCU-mode wb section).
    pub fn inode_to_wb(&self) -> &Wb<P> {
        self.bdi.wb(self.i_wb.load(Ordering::Relaxed))
    }

    /// The current `i_wb` id, read directly (quiescence checks).
    pub fn wb_id(&self) -> usize {
        self.i_wb.load(Ordering::Relaxed)
    }

    /// Publish a new `i_wb` (the switch does this under the i_pages lock).
    pub(crate) fn set_wb(&self, id: usize) {
        self.i_wb.store(id, Ordering::Relaxed);
    }

    /// `mapping_can_writeback()`.
    pub fn mapping_can_writeback(&self) -> bool {
        self.can_writeback
    }
}

/// `struct wb_lock_cookie`: whether the section took the i_pages lock (and the saved IRQ state,
/// which the guard carries).
pub struct WbLockCookie<'a, P: Platform> {
    locked: Option<SpinGuard<'a, P, ()>>,
}

/// `unlocked_inode_to_wb_begin()` (include/linux/backing-dev.h): enter an RCU read section, read
/// I_WB_SWITCH (a plain read followed by `smp_rmb()`, as after Guzik's i_state accessors); if
/// set, take the i_pages lock irqsave; then read `i_wb`. Either the flag was clear and the wb read
/// is the one published before it was cleared, protected by RCU, or the lock serialises with the
/// switch's transfer.
pub fn unlocked_inode_to_wb_begin<'a, P: Platform>(
    ctx: &'a Ctx<P>,
    inode: &'a Inode<P>,
) -> (&'a Wb<P>, WbLockCookie<'a, P>) {
    inode.bdi.rcu.read_lock(ctx);
    let switching = inode.i_state.test_bit(I_WB_SWITCH);
    P::fence(Ordering::Acquire);
    let locked = switching.then(|| inode.i_pages.lock_irqsave(ctx, "unlocked_inode_to_wb_end: xa_unlock_irqrestore"));
    let wb = inode.inode_to_wb();
    let template = if switching {
        "rcu_read_lock; I_WB_SWITCH = 1 -> xa_lock_irqsave(i_pages); i_wb = wb{} ({life})"
    } else {
        "rcu_read_lock; I_WB_SWITCH = 0; i_wb = wb{} ({life})"
    };
    ctx.event("unlocked_inode_to_wb_begin", template, &[wb.id as i64, wb.life() as i64]);
    (wb, WbLockCookie { locked })
}

/// `unlocked_inode_to_wb_end()`: drop the i_pages lock if taken (restoring IRQs), then leave the
/// RCU read section.
pub fn unlocked_inode_to_wb_end<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, cookie: WbLockCookie<'_, P>) {
    let locked = cookie.locked.is_some();
    drop(cookie);
    inode.bdi.rcu.read_unlock(ctx);
    let template = if locked { "xa_unlock_irqrestore(i_pages); rcu_read_unlock" } else { "rcu_read_unlock" };
    ctx.event("unlocked_inode_to_wb_end", template, &[]);
}
