//! `struct inode` with its `struct address_space` (one object here: the models never need
//! them apart): `i_state`, `i_wb`, the i_pages xa_lock, the mapping's writeback capability.

use crate::bitops::BitWord;
use crate::sync::{Platform, SpinLock};
use crate::wb::Wb;
use std::sync::Arc;

/// `I_DIRTY_PAGES` in `i_state`.
pub const I_DIRTY_PAGES: u32 = 2;

pub struct Inode<P: Platform> {
    pub ino: u32,
    /// `inode->i_state`.
    pub i_state: BitWord<P>,
    /// The `mapping->i_pages` xa_lock (taken irqsave by the accounting paths).
    pub i_pages: SpinLock<P, ()>,
    /// `inode->i_wb`. This scenario family never switches wbs, so the association is fixed.
    i_wb: Arc<Wb<P>>,
    /// `mapping_can_writeback()`: the bdi has BDI_CAP_WRITEBACK.
    can_writeback: bool,
}

impl<P: Platform> Inode<P> {
    pub fn new(ino: u32, wb: Arc<Wb<P>>, can_writeback: bool) -> Self {
        Inode {
            ino,
            i_state: BitWord::new(0),
            i_pages: SpinLock::new(()),
            i_wb: wb,
            can_writeback,
        }
    }

    /// `inode_to_wb()`.
    pub fn inode_to_wb(&self) -> &Wb<P> {
        &self.i_wb
    }

    /// `mapping_can_writeback()`.
    pub fn mapping_can_writeback(&self) -> bool {
        self.can_writeback
    }
}
