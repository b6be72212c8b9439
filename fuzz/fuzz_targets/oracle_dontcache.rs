//! Differential fuzzing of the DONTCACHE kick/consume bookkeeping: arbitrary sequences of
//! dirty / kick / flusher-run calls drive wb-core (std platform) and the reference model, which
//! must agree after every call. Placeholder campaign; the full set of targets is issue 6.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use wb_checks::differential::CoreKick;
use wb_checks::oracle::kick::{budget_of, KickOp, RefKick};
use wb_core::revision::KickRevision;

const WRITERS: usize = 2;
const CPUS: usize = 2;
const BATCH: i32 = 4;

#[derive(Debug, Arbitrary)]
enum Op {
    Dirty { writer: u8, cpu: u8, pages: u8 },
    Kick { writer: u8 },
    Run,
}

#[derive(Debug, Arbitrary)]
struct Input {
    revision: u8,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let revision = KickRevision::ALL[input.revision as usize % KickRevision::ALL.len()];
    let mut reference = RefKick::new(WRITERS, CPUS, i64::from(BATCH), budget_of(revision.name()).unwrap());
    let mut core = CoreKick::new(revision, WRITERS, CPUS, BATCH);
    for op in input.ops.iter().take(256) {
        let op = match *op {
            Op::Dirty { writer, cpu, pages } => KickOp::Dirty {
                writer: writer as usize % WRITERS,
                cpu: cpu as usize % CPUS,
                pages: 1 + i64::from(pages % 16),
            },
            Op::Kick { writer } => KickOp::Kick { writer: writer as usize % WRITERS },
            Op::Run => KickOp::Run,
        };
        let want = reference.apply(op);
        let got = core.apply(op);
        assert_eq!(got, want, "{op:?}");
        assert_eq!(core.snapshot(&reference), reference, "{op:?}");
    }
});
