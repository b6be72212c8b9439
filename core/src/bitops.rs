//! Atomic bit operations with the kernel's ordering (Documentation/atomic_bitops.txt).
//!
//! - `test_bit`, `set_bit`, `clear_bit`: unordered (Relaxed).
//! - `test_and_set_bit`, `test_and_clear_bit`: fully ordered, also when the bit is already in
//!   the target state (since commit 415d832497098030, v6.0): modelled as `fence(SeqCst)`, an
//!   AcqRel RMW, `fence(SeqCst)` (see [`crate::sync`] for why not a SeqCst RMW under loom).
//!
//! Every access is traced ([`Platform::access`]) right after it, before any other scheduling
//! point, with the bits it names: each bit is a location of its own for stale-read marking.

use crate::sync::{Atomic, Ordering, Platform};
use crate::trace::{Loc, Name};

/// A word of flag bits, such as `wb->state`, `folio->flags` or a work item's `PENDING` bit:
/// one atomic location, as in the kernel.
pub struct BitWord<P: Platform> {
    word: P::AtomicUsize,
    loc: Loc,
}

impl<P: Platform> BitWord<P> {
    /// A word holding `bits`, traced as `name`.
    pub fn new(bits: usize, name: Name) -> Self {
        BitWord { word: P::AtomicUsize::new(bits), loc: Loc::new(name) }
    }

    /// Trace an access to the bits `mask`: the word read, the word written.
    #[inline]
    fn traced(&self, mask: usize, read: Option<usize>, written: Option<usize>) {
        P::access(&self.loc, mask as u64, read.map(|w| w as u64), written.map(|w| w as u64));
    }

    /// An RMW of the bits `mask` that found `old` and left `new`.
    #[inline]
    fn rmw(&self, mask: usize, old: usize, new: usize) -> usize {
        self.traced(mask, Some(old), Some(new));
        old
    }

    /// `test_bit()`: a plain, unordered read.
    #[inline]
    pub fn test_bit(&self, nr: u32) -> bool {
        let word = self.word.load(Ordering::Relaxed);
        self.traced(1 << nr, Some(word), None);
        word & (1 << nr) != 0
    }

    /// `set_bit()`: atomic, unordered.
    #[inline]
    pub fn set_bit(&self, nr: u32) {
        let old = self.word.fetch_or(1 << nr, Ordering::Relaxed);
        self.rmw(1 << nr, old, old | 1 << nr);
    }

    /// `clear_bit()`: atomic, unordered.
    #[inline]
    pub fn clear_bit(&self, nr: u32) {
        let old = self.word.fetch_and(!(1 << nr), Ordering::Relaxed);
        self.rmw(1 << nr, old, old & !(1 << nr));
    }

    /// `test_and_set_bit()`: fully ordered; returns the old value of the bit.
    #[inline]
    pub fn test_and_set_bit(&self, nr: u32) -> bool {
        self.test_and_set_bit_word(nr) & (1 << nr) != 0
    }

    /// `test_and_clear_bit()`: fully ordered; returns the old value of the bit.
    #[inline]
    pub fn test_and_clear_bit(&self, nr: u32) -> bool {
        self.test_and_clear_bit_word(nr) & (1 << nr) != 0
    }

    /// `atomic_long_fetch_or(BIT(nr), word)`: `test_and_set_bit` returning the whole old word, so
    /// a caller can decide on another bit's value at the same instant. Fully ordered.
    #[inline]
    pub fn test_and_set_bit_word(&self, nr: u32) -> usize {
        P::fence(Ordering::SeqCst);
        let old = self.word.fetch_or(1 << nr, Ordering::AcqRel);
        self.rmw(1 << nr, old, old | 1 << nr);
        P::fence(Ordering::SeqCst);
        old
    }

    /// `atomic_long_fetch_andnot(BIT(nr), word)`: `test_and_clear_bit` returning the whole old
    /// word. Fully ordered.
    #[inline]
    pub fn test_and_clear_bit_word(&self, nr: u32) -> usize {
        P::fence(Ordering::SeqCst);
        let old = self.word.fetch_and(!(1 << nr), Ordering::AcqRel);
        self.rmw(1 << nr, old, old & !(1 << nr));
        P::fence(Ordering::SeqCst);
        old
    }

    /// `atomic_long_fetch_andnot(mask, word)` for several bits at once; returns the old word.
    /// Fully ordered.
    #[inline]
    pub fn clear_bits_word(&self, mask: usize) -> usize {
        P::fence(Ordering::SeqCst);
        let old = self.word.fetch_and(!mask, Ordering::AcqRel);
        self.rmw(mask, old, old & !mask);
        P::fence(Ordering::SeqCst);
        old
    }

    /// `word |= mask` for a word whose writers hold a lock (`inode->i_state` under `i_lock`):
    /// unordered; the lock orders it. An RMW, not a load and a store: in C11 only RMWs continue a
    /// release sequence, and a lockless acquire reader of the word (`unlocked_inode_to_wb_begin`)
    /// must stay ordered after an earlier release store to it (the switch's I_WB_SWITCH clear),
    /// as LKMM orders it through the lock hand-over (a load and a store here let loom read a
    /// stale `i_wb` LKMM forbids).
    #[inline]
    pub fn or_locked(&self, mask: usize) {
        let old = self.word.fetch_or(mask, Ordering::Relaxed);
        self.rmw(mask, old, old | mask);
    }

    /// `word &= ~mask` for a word whose writers hold a lock; returns the old word. An RMW, as
    /// [`BitWord::or_locked`].
    #[inline]
    pub fn andnot_locked(&self, mask: usize) -> usize {
        let old = self.word.fetch_and(!mask, Ordering::Relaxed);
        self.rmw(mask, old, old & !mask)
    }

    /// A `try_cmpxchg` loop: apply `f` to the word until it sticks or `f` declines; returns the
    /// old word and whether `f` changed it. Fully ordered. `f` may look at any bit: every read is
    /// traced as a read of the whole word, the exchange as an RMW of the bits it changed.
    pub fn update(&self, f: impl Fn(usize) -> Option<usize>) -> (usize, bool) {
        P::rmw_begin();
        let mut cur = self.word.load(Ordering::Relaxed);
        self.traced(usize::MAX, Some(cur), None);
        let changed = loop {
            let Some(next) = f(cur) else { break false };
            match self.word.compare_exchange(cur, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    self.rmw(cur ^ next, cur, next);
                    break true;
                }
                Err(now) => {
                    self.traced(usize::MAX, Some(now), None);
                    cur = now;
                }
            }
        };
        P::rmw_end(changed, true);
        (cur, changed)
    }

    /// The whole word, Relaxed: for properties checked at quiescence, and for lock-ordered
    /// readers.
    pub fn word(&self) -> usize {
        let word = self.word.load(Ordering::Relaxed);
        self.traced(usize::MAX, Some(word), None);
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::Std;

    #[test]
    fn bit_operations_return_old_values() {
        let w = BitWord::<Std>::new(0, Name { what: "w", index: 0, bits: &[] });
        assert!(!w.test_and_set_bit(3));
        assert!(w.test_and_set_bit(3));
        assert!(w.test_bit(3));
        assert!(w.test_and_clear_bit(3));
        assert!(!w.test_and_clear_bit(3));
        w.set_bit(1);
        assert_eq!(w.word(), 0b10);
        w.clear_bit(1);
        assert_eq!(w.word(), 0);
    }

    /// Each operation traces the bits it names, the word it read and the word it wrote (the
    /// stale-read marks of every counterexample are computed from these). Values are chosen so
    /// that a wrong bit, a wrong operator or a dropped value changes the log: bit 3 is already set
    /// when `set_bit(3)` runs, bit 0 already clear when `clear_bit(0)` runs, bit 2 already set when
    /// `test_and_set_bit(2)` runs, bit 1 already set when `or_locked(0b1110)` runs.
    #[test]
    fn every_operation_traces_its_bits_and_values() {
        use crate::ctx::{CpuPlan, Ctx};
        use crate::sync::Loom;
        use crate::trace::Trace;
        use std::sync::Arc;
        loom::model(|| {
            let trace = Arc::new(Trace::new());
            let ctx = Ctx::<Loom>::new(trace.clone(), "t", CpuPlan::Fixed(0));
            let w = BitWord::<Loom>::new(0b1010, Name { what: "w", index: 0, bits: &[] });
            assert!(w.test_bit(3));
            w.set_bit(3);
            w.set_bit(2);
            w.clear_bit(0);
            w.clear_bit(3);
            assert!(w.test_and_set_bit(2));
            assert!(!w.test_and_set_bit(3));
            assert!(w.test_and_clear_bit(2));
            assert_eq!(w.clear_bits_word(0b1001), 0b1010);
            w.or_locked(0b1110);
            assert_eq!(w.andnot_locked(0b0100), 0b1110);
            assert_eq!(w.update(|v| (v & 1 == 0).then_some(v | 1)), (0b1010, true));
            assert_eq!(w.update(|v| (v & 1 == 0).then_some(v | 1)), (0b1011, false));
            assert_eq!(w.word(), 0b1011);
            drop(ctx);
            let all = u64::MAX;
            assert_eq!(
                trace.accesses(),
                vec![
                    (0b1000, Some(0b1010), None),
                    (0b1000, Some(0b1010), Some(0b1010)),
                    (0b0100, Some(0b1010), Some(0b1110)),
                    (0b0001, Some(0b1110), Some(0b1110)),
                    (0b1000, Some(0b1110), Some(0b0110)),
                    (0b0100, Some(0b0110), Some(0b0110)),
                    (0b1000, Some(0b0110), Some(0b1110)),
                    (0b0100, Some(0b1110), Some(0b1010)),
                    (0b1001, Some(0b1010), Some(0b0010)),
                    (0b1110, Some(0b0010), Some(0b1110)),
                    (0b0100, Some(0b1110), Some(0b1010)),
                    (all, Some(0b1010), None),
                    (0b0001, Some(0b1010), Some(0b1011)),
                    (all, Some(0b1011), None),
                    (all, Some(0b1011), None),
                ]
            );
        });
    }
}
