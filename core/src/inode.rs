//! `struct inode` with its `struct address_space` (one object here: the models never need them
//! apart): `i_state`, `i_wb`, the i_pages xa_lock, the page-cache folios, and the RCU/xa_lock
//! protocol that reads `i_wb` while a cgroup wb switch may be in progress.

use crate::bitops::BitWord;
use crate::ctx::Ctx;
use crate::folio::{Folio, PAGECACHE_TAG_DIRTY};
use crate::spinlock::{SpinGuard, SpinLock};
use crate::sync::{Locked, Ordering, Platform, Traced};
use crate::trace::Name;
use crate::wb::{Bdi, Wb};
use std::sync::Arc;

/// `I_DIRTY_SYNC` in `i_state`: the inode itself (timestamps, metadata) needs writing.
pub const I_DIRTY_SYNC: u32 = 0;
/// `I_DIRTY_DATASYNC`: metadata needed for data integrity (no modelled caller sets it alone).
pub const I_DIRTY_DATASYNC: u32 = 1;
/// `I_DIRTY_PAGES` in `i_state`.
pub const I_DIRTY_PAGES: u32 = 2;
/// `I_DIRTY`: any of the three dirty bits, as `__mark_inode_dirty`'s `was_dirty` and
/// `__writeback_single_inode` test them.
pub const I_DIRTY: usize = 1 << I_DIRTY_SYNC | 1 << I_DIRTY_DATASYNC | 1 << I_DIRTY_PAGES;
/// `I_SYNC`: writeback of the inode is in progress (set by `writeback_sb_inodes`).
pub const I_SYNC: u32 = 7;
/// `I_SYNC_QUEUED`: `queue_io` moved the inode to `b_io`; `__mark_inode_dirty` then only updates
/// the dirty bits and leaves the list position to the flusher.
pub const I_SYNC_QUEUED: u32 = 17;
/// `I_WB_SWITCH` in `i_state`: a cgroup wb switch is in progress; RCU-mode stat updaters must
/// take the i_pages lock.
pub const I_WB_SWITCH: u32 = 12;
/// The names of the `i_state` bits kept in [`Inode::i_state`], for traced accesses.
const I_BITS: &[(u32, &str)] = &[
    (I_DIRTY_SYNC, "I_DIRTY_SYNC"),
    (I_DIRTY_DATASYNC, "I_DIRTY_DATASYNC"),
    (I_DIRTY_PAGES, "I_DIRTY_PAGES"),
    (I_WB_SWITCH, "I_WB_SWITCH"),
];

pub struct Inode<P: Platform> {
    pub ino: u32,
    /// `inode->i_state`.
    pub i_state: BitWord<P>,
    /// `inode->i_lock`.
    pub i_lock: SpinLock<P, ()>,
    /// The `mapping->i_pages` xa_lock (taken irqsave by the accounting paths).
    pub i_pages: SpinLock<P, ()>,
    /// `inode->i_wb`: the id of the wb in `bdi`.
    i_wb: Traced<P, P::AtomicUsize>,
    /// The `i_state` bits I_SYNC and I_SYNC_QUEUED. In the kernel they share `i_state` with the
    /// dirty bits; every access to them holds `i_lock`, and the lockless readers of `i_state`
    /// (`__mark_inode_dirty`'s "already dirty" test, `unlocked_inode_to_wb_begin`'s I_WB_SWITCH)
    /// mask them out, so they live apart here, out of the checkers' sight ([`Locked`]): the same
    /// decisions, without the interleavings of bits no lockless reader tests.
    sync_bits: Locked,
    /// `inode->i_io_list`: which list of its wb the inode is on ([`IoList`]); changed under that
    /// wb's `list_lock` (and `i_lock`).
    io_list: Locked,
    /// `inode->dirtied_when`, as a tick of the bdi's clock: `b_dirty` and `b_io` are kept in this
    /// order, oldest written first. Changed under `i_lock` and the wb's `list_lock`.
    dirtied_when: Locked,
    /// The i_pages xarray's root DIRTY mark, as a count of folios carrying the mark: changed with
    /// the marks under the i_pages lock, read locklessly by `mapping_tagged()`.
    nr_dirty_tagged: Traced<P, P::AtomicUsize>,
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
            i_state: BitWord::new(0, Name { what: "inode{}.i_state", index: i64::from(ino), bits: I_BITS }),
            i_lock: SpinLock::new(()),
            i_pages: SpinLock::new(()),
            i_wb: Traced::new(wb, Name::int("inode{}.i_wb", i64::from(ino))),
            sync_bits: Locked::new(0),
            io_list: Locked::new(IoList::None as usize),
            dirtied_when: Locked::new(0),
            nr_dirty_tagged: Traced::new(0, Name::int("inode{}.dirty_tagged", i64::from(ino))),
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

    /// `mapping_tagged(mapping, PAGECACHE_TAG_DIRTY)`: a lockless read of the root mark.
    pub fn mapping_tagged_dirty(&self) -> bool {
        self.nr_dirty_tagged.load(Ordering::Relaxed) != 0
    }

    /// Set `folio`'s DIRTY mark (caller holds the i_pages lock): `__xa_set_mark`, which also
    /// sets the root mark.
    pub fn xa_set_dirty_mark(&self, folio: &Folio<P>) {
        if !folio.marks.test_bit(PAGECACHE_TAG_DIRTY) {
            folio.marks.set_bit(PAGECACHE_TAG_DIRTY);
            self.nr_dirty_tagged.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Clear `folio`'s DIRTY mark (caller holds the i_pages lock): `__xa_clear_mark`, which
    /// clears the root mark with the last one.
    pub fn xa_clear_dirty_mark(&self, folio: &Folio<P>) {
        if folio.marks.test_bit(PAGECACHE_TAG_DIRTY) {
            folio.marks.clear_bit(PAGECACHE_TAG_DIRTY);
            self.nr_dirty_tagged.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Whether `i_state` has `bit` (I_SYNC or I_SYNC_QUEUED); caller holds `i_lock`.
    pub fn sync_bit(&self, bit: u32) -> bool {
        self.sync_bits.get() & 1 << bit != 0
    }

    /// Set or clear `bit` (I_SYNC or I_SYNC_QUEUED) in `i_state`; caller holds `i_lock`.
    pub(crate) fn set_sync_bit(&self, bit: u32, on: bool) {
        let word = self.sync_bits.get();
        self.sync_bits.set(if on { word | 1 << bit } else { word & !(1 << bit) });
    }

    /// The list the inode is on (caller holds its wb's `list_lock`, or reads at quiescence).
    pub fn io_list(&self) -> IoList {
        IoList::from_usize(self.io_list.get())
    }

    pub(crate) fn set_io_list(&self, list: IoList) {
        self.io_list.set(list as usize);
    }

    /// `dirtied_when` (caller holds the wb's `list_lock`).
    pub fn dirtied_when(&self) -> usize {
        self.dirtied_when.get()
    }

    pub(crate) fn set_dirtied_when(&self, tick: usize) {
        self.dirtied_when.set(tick);
    }
}

/// The wb list an inode's `i_io_list` is on. `b_attached` and no list are one state here: the
/// models never read `b_attached`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum IoList {
    None = 0,
    /// `b_dirty`: dirty, waiting for a writeback to queue it.
    Dirty = 1,
    /// `b_io`: queued for the writeback in progress.
    Io = 2,
    /// `b_more_io`: requeued for another round of that writeback.
    MoreIo = 3,
}

impl IoList {
    fn from_usize(v: usize) -> IoList {
        match v {
            1 => IoList::Dirty,
            2 => IoList::Io,
            3 => IoList::MoreIo,
            _ => IoList::None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IoList::None => "no list",
            IoList::Dirty => "b_dirty",
            IoList::Io => "b_io",
            IoList::MoreIo => "b_more_io",
        }
    }
}

/// `struct wb_lock_cookie`: whether the section took the i_pages lock (and the saved IRQ state,
/// which the guard carries).
pub struct WbLockCookie<'a, P: Platform> {
    locked: Option<SpinGuard<'a, P, ()>>,
}

impl<P: Platform> WbLockCookie<'_, P> {
    /// `cookie->locked`: the section saw I_WB_SWITCH set and holds the i_pages lock.
    pub fn locked(&self) -> bool {
        self.locked.is_some()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::Std;

    /// I_SYNC and I_SYNC_QUEUED are set and cleared one at a time, each leaving the other (and
    /// setting or clearing twice is the same as once), as the kernel's `i_state |=` / `&= ~` do.
    /// The scenarios read these bits only under `i_lock` and through the flusher's list
    /// decisions: wrong bit operations here survived all of them in the mutation campaign
    /// (docs/mutation.md), so the operations themselves are pinned here.
    #[test]
    fn sync_bits_are_set_and_cleared_one_at_a_time() {
        let bdi = Arc::new(Bdi::<Std>::new(0, 1, 4, 1));
        let inode = Inode::new(0, bdi, 0, true, Vec::new());
        let bits = |i: &Inode<Std>| (i.sync_bit(I_SYNC), i.sync_bit(I_SYNC_QUEUED));
        assert_eq!(bits(&inode), (false, false));
        inode.set_sync_bit(I_SYNC_QUEUED, true);
        assert_eq!(bits(&inode), (false, true));
        inode.set_sync_bit(I_SYNC, true);
        inode.set_sync_bit(I_SYNC, true);
        assert_eq!(bits(&inode), (true, true));
        inode.set_sync_bit(I_SYNC_QUEUED, false);
        inode.set_sync_bit(I_SYNC_QUEUED, false);
        assert_eq!(bits(&inode), (true, false));
        inode.set_sync_bit(I_SYNC, false);
        assert_eq!(bits(&inode), (false, false));
        assert_eq!(inode.i_state.word(), 0, "the sync bits live apart from i_state's traced bits");
    }

    /// Every list survives the store as its own state, and a counterexample names it as the
    /// kernel does (the mutation campaign found that no scenario run ends with an inode on
    /// `b_more_io`, so only this sees a `b_more_io` read back as no list).
    #[test]
    fn io_lists_are_stored_and_named() {
        let bdi = Arc::new(Bdi::<Std>::new(0, 1, 4, 1));
        let inode = Inode::new(0, bdi, 0, true, Vec::new());
        let mut seen = Vec::new();
        for list in [IoList::Dirty, IoList::Io, IoList::MoreIo, IoList::None] {
            inode.set_io_list(list);
            assert_eq!(inode.io_list(), list);
            seen.push(list.name());
        }
        assert_eq!(seen, ["b_dirty", "b_io", "b_more_io", "no list"]);
    }
}
