//! Sequential reference models (oracles), written independently of wb-core: they share no code
//! with it and do not call it, so comparing the two is not a tautology. Each models the kernel's
//! behaviour with every call atomic, as a specification of what a call does when nothing runs
//! concurrently.

pub mod accounting;
pub mod folio_dirty;
pub mod kick;
pub mod percpu;
pub mod pin;
pub mod slots;
