//! Programs generated from a sequence of small choices.
//!
//! One generator serves every source of choices: proptest feeds it a byte vector (so shrinking
//! the bytes toward fewer and smaller ones shrinks the program toward fewer threads, fewer and
//! simpler operations, relaxed orders and small values), cargo-fuzz feeds it the fuzzer's bytes,
//! and the campaign feeds it a seeded random stream. Every choice maps 0 to its simplest
//! option, and a source that runs out keeps answering 0.

use super::program::{Mo, Op, Program, MAX_LOCS, MAX_MUTEXES, MAX_OPS, MAX_THREADS};

/// Where the choices come from.
pub trait Choices {
    /// A choice in `0..n` (0 when `n` is 0 or 1).
    fn below(&mut self, n: usize) -> usize;
}

/// Choices read from bytes, one byte a choice, then 0 for ever.
#[derive(Debug)]
pub struct Bytes<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Bytes { bytes, pos: 0 }
    }
}

impl Choices for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b as usize % n
    }
}

/// Seeded choices (xorshift64*), for campaigns.
#[derive(Debug, Clone)]
pub struct Seeded(u64);

impl Seeded {
    pub fn new(seed: u64) -> Self {
        Seeded(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
}

impl Choices for Seeded {
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize % n
    }
}

/// The size and the features of the programs to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// 2 to this many threads (at most [`MAX_THREADS`]).
    pub max_threads: usize,
    /// 1 to this many operations per thread (at most [`MAX_OPS`]).
    pub max_ops: usize,
    /// 1 to this many locations (at most [`MAX_LOCS`]).
    pub max_locs: usize,
    /// Mutex sections (`lock(m); access; unlock(m)`).
    pub mutexes: bool,
    /// SeqCst accesses (fences may be SeqCst either way).
    pub sc_accesses: bool,
}

impl Shape {
    /// The whole language.
    pub const FULL: Shape =
        Shape { max_threads: MAX_THREADS, max_ops: MAX_OPS, max_locs: MAX_LOCS, mutexes: true, sc_accesses: true };
}

/// The program the choices `c` make, within `shape`.
pub fn program(c: &mut impl Choices, shape: Shape) -> Program {
    let threads = 2 + c.below(shape.max_threads.clamp(2, MAX_THREADS) - 1);
    let locs = 1 + c.below(shape.max_locs.clamp(1, MAX_LOCS)) as u8;
    let t0_on_main = c.below(2) == 1;
    let mut writes = [0usize; MAX_LOCS];
    let program_threads = (0..threads)
        .map(|_| {
            let n = 1 + c.below(shape.max_ops.clamp(1, MAX_OPS));
            let mut ops = Vec::new();
            while ops.len() < n {
                let kinds = if shape.mutexes && n - ops.len() >= 3 { 7 } else { 6 };
                match c.below(kinds) {
                    5 => ops.push(Op::Fence { mo: pick(c, &Mo::FENCE) }),
                    6 => {
                        let mutex = c.below(MAX_MUTEXES) as u8;
                        ops.push(Op::Lock { mutex });
                        ops.push(access(c, shape, locs, &mut writes));
                        ops.push(Op::Unlock { mutex });
                    }
                    _ => ops.push(access(c, shape, locs, &mut writes)),
                }
            }
            ops
        })
        .collect::<Vec<Vec<Op>>>();
    // Only the locations used: the text form names no other (and reads back the same).
    let used = program_threads.iter().flatten().filter_map(Op::loc).max().map_or(1, |l| l + 1);
    let p = Program { locs: used, threads: program_threads, t0_on_main };
    debug_assert_eq!(p.validate(), Ok(()), "{p}");
    p
}

/// At most this many writes to one location in a generated program (fewer than the language
/// allows: the campaigns' programs, fixed by their seeds, were generated with it).
const GEN_WRITES_PER_LOC: usize = 6;

/// A memory access: a load, or a write to a location that has had fewer than
/// [`GEN_WRITES_PER_LOC`] (then a load).
fn access(c: &mut impl Choices, shape: Shape, locs: u8, writes: &mut [usize; MAX_LOCS]) -> Op {
    let loc = c.below(locs as usize) as u8;
    let kind = c.below(5);
    let orders = |all: &'static [Mo]| -> &'static [Mo] {
        if shape.sc_accesses {
            all
        } else {
            &all[..all.len() - 1]
        }
    };
    if kind == 0 || writes[loc as usize] >= GEN_WRITES_PER_LOC {
        return Op::Load { loc, mo: pick(c, orders(&Mo::LOAD)) };
    }
    writes[loc as usize] += 1;
    match kind {
        1 => Op::Store { loc, val: 1 + c.below(3) as u64, mo: pick(c, orders(&Mo::STORE)) },
        2 => Op::Swap { loc, val: 1 + c.below(3) as u64, mo: pick(c, orders(&Mo::RMW)) },
        3 => Op::FetchAdd { loc, val: 1 + c.below(3) as u64, mo: pick(c, orders(&Mo::RMW)) },
        _ => {
            let expected = c.below(3) as u64;
            let new = 1 + c.below(3) as u64;
            let success = pick(c, orders(&Mo::RMW));
            let failure = pick(c, orders(&Mo::LOAD));
            Op::Cas { loc, expected, new, success, failure }
        }
    }
}

fn pick(c: &mut impl Choices, from: &[Mo]) -> Mo {
    from[c.below(from.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_choices_make_the_simplest_program() {
        let p = program(&mut Bytes::new(&[]), Shape::FULL);
        assert_eq!(p.to_string(), "T0: x.load(rlx)\nT1: x.load(rlx)\n");
    }

    #[test]
    fn every_generated_program_is_valid_and_the_language_is_covered() {
        let mut kinds = std::collections::HashSet::new();
        for seed in 0..2000 {
            let p = program(&mut Seeded::new(seed), Shape::FULL);
            assert_eq!(p.validate(), Ok(()), "{p}");
            assert_eq!(Program::parse(&p.to_string()).as_ref(), Ok(&p));
            for op in p.threads.iter().flatten() {
                kinds.insert(std::mem::discriminant(op));
            }
        }
        assert_eq!(kinds.len(), 8, "every kind of operation is generated");
    }

    #[test]
    fn a_shape_without_mutexes_or_sc_accesses_has_none() {
        let shape = Shape { mutexes: false, sc_accesses: false, ..Shape::FULL };
        for seed in 0..500 {
            let p = program(&mut Seeded::new(seed), shape);
            assert!(!p.has_mutex() && !p.has_sc_access(), "{p}");
        }
    }
}
