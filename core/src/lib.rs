//! wb-core: a small lock-free model of Linux writeback protocols, generic over the checker
//! platform (std, loom, shuttle), each patch revision selectable.
//!
//! Modules are named after the kernel concepts they model; every modelled function names the
//! kernel function and patch revision it follows. The kernel-to-Rust mapping of primitives is
//! in [`sync`].

pub mod address_space;
pub mod bdev;
pub mod bitops;
pub mod ctx;
pub mod dontcache;
pub mod fadvise;
pub mod filemap;
pub mod folio;
pub mod fs_writeback;
pub mod huge_memory;
pub mod inode;
pub mod iomap;
pub mod memcg;
pub mod migrate;
pub mod page_writeback;
pub mod percpu;
pub mod property;
pub mod pte;
pub mod rcu;
pub mod readahead;
pub mod revision;
pub mod spinlock;
pub mod sync;
pub mod trace;
pub mod wb;
