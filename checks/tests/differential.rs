//! wb-core against the independent reference models, over random operation sequences with
//! random CPU placement and folio sizes on both sides of the percpu batch
//! (proptest-state-machine). Every kernel call is applied to both; after each one the core's
//! state, read directly, must equal the reference's.

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};
use wb_checks::differential::{CoreAccounting, CoreKick, CorePin, CounterOp, CounterPair};
use wb_checks::oracle::dontcache_accounting::{ref_revision, AccOp, RefAccounting};
use wb_checks::oracle::dontcache_kick::{kick_knobs, KickOp, KickUniverse, RefKick};
use wb_checks::oracle::percpu_counter::RefPercpu;
use wb_checks::oracle::wb_pin::{pin_revision, PinOp, RefPin};
use wb_core::revision::{AccountingRevision, KickRevision, PinRevision};
use wb_models::dontcache_kick::FolioOf;

const CPUS: usize = 3;
const BATCH: i32 = 4;

/// The objects of the kick comparison: two inodes with DONTCACHE folios of sizes on both sides
/// of the batch (one a fault's, whose pages no kick follows) and a plain folio each; inode 1
/// dirty at the start.
fn kick_universe() -> KickUniverse {
    let b = i64::from(BATCH);
    KickUniverse {
        inodes: vec![
            vec![(FolioOf::KICKED, 1), (FolioOf::FAULT, 2 * b), (FolioOf::PLAIN, 1)],
            vec![(FolioOf::KICKED, b - 1), (FolioOf::KICKED, 3), (FolioOf::PLAIN, 2)],
        ],
        dirty_at_start: vec![false, true],
    }
}

/// A reference state machine for one revision of the kick/consume protocol.
macro_rules! kick_machine {
    ($reference:ident, $test:ident, $knobs:expr, $proto:expr) => {
        struct $reference;
        impl ReferenceStateMachine for $reference {
            type State = RefKick;
            type Transition = KickOp;
            fn init_state() -> BoxedStrategy<RefKick> {
                Just(RefKick::new(&kick_universe(), CPUS, i64::from(BATCH), $knobs)).boxed()
            }
            fn transitions(_: &RefKick) -> BoxedStrategy<KickOp> {
                prop_oneof![
                    4 => (0..2usize, 0..3usize, 0..CPUS).prop_map(|(inode, f, cpu)| KickOp::Dirty {
                        inode,
                        folio: f.min(kick_universe().inodes[inode].len() - 1),
                        cpu
                    }),
                    1 => (0..2usize).prop_map(|inode| KickOp::MarkSync { inode }),
                    2 => (0..2usize, 0..3usize).prop_map(|(inode, f)| KickOp::Kick {
                        inode,
                        folio: f.min(kick_universe().inodes[inode].len() - 1)
                    }),
                    2 => any::<bool>().prop_map(|rescuer| KickOp::Run { rescuer }),
                    1 => Just(KickOp::Fire),
                    1 => any::<bool>().prop_map(|rescuer| KickOp::Look { rescuer }),
                    1 => Just(KickOp::Drain),
                ]
                .boxed()
            }
            fn apply(mut state: RefKick, op: &KickOp) -> RefKick {
                state.apply(*op);
                state
            }
        }
        struct $test;
        impl StateMachineTest for $test {
            type SystemUnderTest = CoreKick;
            type Reference = $reference;
            fn init_test(_: &RefKick) -> CoreKick {
                CoreKick::new($proto, &kick_universe(), CPUS, BATCH)
            }
            fn apply(mut core: CoreKick, reference: &RefKick, op: KickOp) -> CoreKick {
                core.apply(op);
                assert_eq!(core.snapshot(reference), *reference, "after {op:?}");
                core
            }
        }
    };
}

kick_machine!(RefV7, CoreV7, kick_knobs(KickRevision::from_name("v7").unwrap()), KickRevision::V7.knobs());
kick_machine!(
    RefFixKick,
    CoreFixKick,
    kick_knobs(KickRevision::from_name("v7-fix-kick").unwrap()),
    KickRevision::V7FixKick.knobs()
);
kick_machine!(
    RefLateClear,
    CoreLateClear,
    kick_knobs(KickRevision::from_name("v5-late-clear").unwrap()),
    KickRevision::V5LateClear.knobs()
);
kick_machine!(
    RefApprox,
    CoreApprox,
    kick_knobs(KickRevision::from_name("v5-approx-read").unwrap()),
    KickRevision::V5ApproxRead.knobs()
);
kick_machine!(
    RefRequeue,
    CoreRequeue,
    kick_knobs(KickRevision::from_name("v7-fix-rescuer-requeue").unwrap()),
    KickRevision::V7FixRescuerRequeue.knobs()
);
kick_machine!(
    RefFixBoth,
    CoreFixBoth,
    kick_knobs(KickRevision::from_name("v7-fix-kick-requeue").unwrap()),
    KickRevision::V7FixKickRequeue.knobs()
);
kick_machine!(
    RefHold,
    CoreHold,
    kick_knobs(KickRevision::from_name("v7-fix-kick-hold").unwrap()),
    KickRevision::V7FixKickHold.knobs()
);

prop_state_machine! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn v7_core_matches_reference(sequential 1..60 => CoreV7);
    #[test]
    fn v7_fix_kick_core_matches_reference(sequential 1..60 => CoreFixKick);
    #[test]
    fn v5_late_clear_core_matches_reference(sequential 1..60 => CoreLateClear);
    #[test]
    fn v5_approx_read_core_matches_reference(sequential 1..60 => CoreApprox);
    #[test]
    fn v7_fix_rescuer_requeue_core_matches_reference(sequential 1..60 => CoreRequeue);
    #[test]
    fn v7_fix_kick_requeue_core_matches_reference(sequential 1..60 => CoreFixBoth);
    #[test]
    fn v7_fix_kick_hold_core_matches_reference(sequential 1..60 => CoreHold);
}

/// percpu_counter alone, with negative amounts and every reader.
struct RefCounter;
impl ReferenceStateMachine for RefCounter {
    type State = RefPercpu;
    type Transition = CounterOp;
    fn init_state() -> BoxedStrategy<RefPercpu> {
        Just(RefPercpu::new(CPUS, i64::from(BATCH))).boxed()
    }
    fn transitions(_: &RefPercpu) -> BoxedStrategy<CounterOp> {
        let b = 2 * i64::from(BATCH);
        prop_oneof![
            4 => (0..CPUS, -b..=b).prop_map(|(cpu, amount)| CounterOp::Add { cpu, amount }),
            1 => Just(CounterOp::Read),
            1 => Just(CounterOp::Sum),
        ]
        .boxed()
    }
    fn apply(mut state: RefPercpu, op: &CounterOp) -> RefPercpu {
        if let CounterOp::Add { cpu, amount } = *op {
            state.add(cpu, amount);
        }
        state
    }
}

struct CoreCounter;
impl StateMachineTest for CoreCounter {
    type SystemUnderTest = CounterPair;
    type Reference = RefCounter;
    fn init_test(_: &RefPercpu) -> CounterPair {
        CounterPair::new(CPUS, BATCH)
    }
    fn apply(mut pair: CounterPair, r: &RefPercpu, op: CounterOp) -> CounterPair {
        pair.apply(op).unwrap();
        assert_eq!(pair.reference, *r, "the pair's reference follows the state machine's");
        pair
    }
}

prop_state_machine! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn percpu_counter_matches_reference(sequential 1..80 => CoreCounter);
}

/// wb-pin: refcounts, lifetimes, the switch and the kick's pinning, core against reference.
macro_rules! pin_machine {
    ($reference:ident, $test:ident, $revision:expr) => {
        struct $reference;
        impl ReferenceStateMachine for $reference {
            type State = RefPin;
            type Transition = PinOp;
            fn init_state() -> BoxedStrategy<RefPin> {
                let (pin, fix) = pin_revision(PinRevision::from_name($revision).unwrap());
                Just(RefPin::new(pin, fix, PIN_FOLIOS)).boxed()
            }
            fn transitions(_: &RefPin) -> BoxedStrategy<PinOp> {
                prop_oneof![
                    3 => (0..PIN_FOLIOS).prop_map(|folio| PinOp::Dirty { folio }),
                    3 => (0..PIN_FOLIOS).prop_map(|folio| PinOp::Kick { folio }),
                    1 => Just(PinOp::SwitchBegin),
                    1 => Just(PinOp::SwitchWork),
                    2 => prop_oneof![Just(PinOp::Look { wb: 1 }), Just(PinOp::Look { wb: 2 })],
                    1 => Just(PinOp::Drain),
                ]
                .boxed()
            }
            fn apply(mut state: RefPin, op: &PinOp) -> RefPin {
                state.apply(*op);
                state
            }
        }
        struct $test;
        impl StateMachineTest for $test {
            type SystemUnderTest = CorePin;
            type Reference = $reference;
            fn init_test(_: &RefPin) -> CorePin {
                CorePin::new(PinRevision::from_name($revision).unwrap(), PIN_FOLIOS)
            }
            fn apply(mut core: CorePin, reference: &RefPin, op: PinOp) -> CorePin {
                core.apply(op);
                assert_eq!(core.snapshot(reference), *reference, "after {op:?}");
                core
            }
        }
    };
}

const PIN_FOLIOS: usize = 3;
pin_machine!(RefPinV7, CorePinV7, "v7");
pin_machine!(RefPinFix, CorePinFix, "v7-fix-switch-kick");
pin_machine!(RefPinV5, CorePinV5, "v5-wakeup-in-section");

prop_state_machine! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn wb_pin_v7_core_matches_reference(sequential 1..40 => CorePinV7);
    #[test]
    fn wb_pin_fix_core_matches_reference(sequential 1..40 => CorePinFix);
    #[test]
    fn wb_pin_v5_core_matches_reference(sequential 1..40 => CorePinV5);
}

/// dontcache-accounting: random sequences of dirtying, writeback, truncation, lookups, the switch
/// and the split, core against the reference, in 64-bit and 32-bit arithmetic.
macro_rules! accounting_machine {
    ($reference:ident, $test:ident, $revision:expr) => {
        struct $reference;
        impl ReferenceStateMachine for $reference {
            type State = RefAccounting;
            type Transition = AccOp;
            fn init_state() -> BoxedStrategy<RefAccounting> {
                Just(RefAccounting::new(ref_revision(AccountingRevision::from_name($revision).unwrap()))).boxed()
            }
            fn transitions(_: &RefAccounting) -> BoxedStrategy<AccOp> {
                let folio = 0..6usize;
                prop_oneof![
                    3 => folio.clone().prop_map(AccOp::DontcacheWrite),
                    1 => folio.clone().prop_map(AccOp::BufferedWrite),
                    1 => folio.clone().prop_map(AccOp::MkwriteFault),
                    1 => folio.clone().prop_map(AccOp::Zap),
                    2 => folio.clone().prop_map(AccOp::Writeback),
                    1 => folio.clone().prop_map(AccOp::WritebackRedirty),
                    1 => folio.clone().prop_map(AccOp::Truncate),
                    3 => folio.prop_map(AccOp::Lookup),
                    1 => Just(AccOp::Switch),
                    1 => Just(AccOp::Migrate),
                    1 => Just(AccOp::Split),
                ]
                .boxed()
            }
            fn apply(mut state: RefAccounting, op: &AccOp) -> RefAccounting {
                state.apply(*op);
                state
            }
        }
        struct $test;
        impl StateMachineTest for $test {
            type SystemUnderTest = CoreAccounting;
            type Reference = $reference;
            fn init_test(_: &RefAccounting) -> CoreAccounting {
                CoreAccounting::new(AccountingRevision::from_name($revision).unwrap())
            }
            fn apply(mut core: CoreAccounting, reference: &RefAccounting, op: AccOp) -> CoreAccounting {
                core.apply(op);
                assert_eq!(core.snapshot(reference), *reference, "after {op:?}");
                core
            }
        }
    };
}

accounting_machine!(RefAccV7, CoreAccV7, "v7");
accounting_machine!(RefAccNeg32, CoreAccNeg32, "v6-u32-negate-32bit");
accounting_machine!(RefAccNeg64, CoreAccNeg64, "v6-u32-negate-64bit");
accounting_machine!(RefAccSplit, CoreAccSplit, "v6-split-drops-flag");
accounting_machine!(RefAccFix, CoreAccFix, "v7-fix-counted-bit");

prop_state_machine! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn accounting_v7_core_matches_reference(sequential 1..50 => CoreAccV7);
    #[test]
    fn accounting_32bit_negation_core_matches_reference(sequential 1..50 => CoreAccNeg32);
    #[test]
    fn accounting_64bit_negation_core_matches_reference(sequential 1..50 => CoreAccNeg64);
    #[test]
    fn accounting_split_drops_flag_core_matches_reference(sequential 1..50 => CoreAccSplit);
    #[test]
    fn accounting_fix_core_matches_reference(sequential 1..50 => CoreAccFix);
}
