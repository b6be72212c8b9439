//! Expected verdicts of `dontcache-accounting` (loom role sets, shuttle mixture), and one test
//! per v7 finding on the role set that shows it. The oracle column is tested in wb-checks.

use std::collections::BTreeSet;
use wb_core::revision::AccountingRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_accounting::{loom_mixes, DontcacheAccounting, Mix, Role, COUNTER_EXACT};
use wb_models::harness::{run_loom, Model};
use wb_models::outcome::{Checker, Outcome};
use wb_models::scenario::Scenario;

fn bounds() -> Bounds {
    Bounds::from_env(Tier::Quick).expect("valid bounds")
}

fn violates(revision: &str, checker: Checker) -> bool {
    let o = DontcacheAccounting.run(revision, checker, &bounds()).unwrap();
    assert!(!o.bounded);
    let v = o.violated();
    assert!(v.is_empty() || v == BTreeSet::from([COUNTER_EXACT]), "{v:?}");
    !v.is_empty()
}

/// loom on one role set.
fn loom_mix(revision: &str, roles: &[Role], dirty_at_start: &[usize]) -> Outcome {
    let rev = AccountingRevision::from_name(revision).unwrap();
    let mut model = DontcacheAccounting::model_for(rev, Checker::Loom);
    let mix = loom_mixes().into_iter().find(|m| m.roles == roles && m.dirty_at_start == dirty_at_start);
    model.variants = vec![mix.unwrap_or_else(|| panic!("{roles:?} is not one of the loom role sets"))];
    assert_eq!(model.loom_variants().len(), 1);
    run_loom(&model, &bounds())
}

fn functions(o: &Outcome) -> BTreeSet<String> {
    o.counterexample(COUNTER_EXACT).unwrap().steps.iter().map(|s| s.function.clone()).collect()
}

macro_rules! verdicts {
    ($($module:ident: $rev:expr => [$loom:expr, $pct:expr, $random:expr];)*) => {$(
        mod $module {
            use super::*;
            #[test]
            fn loom() {
                assert_eq!(violates($rev, Checker::Loom), $loom);
            }
            #[test]
            fn shuttle_pct() {
                assert_eq!(violates($rev, Checker::ShuttlePct), $pct);
            }
            #[test]
            fn shuttle_random() {
                assert_eq!(violates($rev, Checker::ShuttleRandom), $random);
            }
        }
    )*};
}

// true: counter-exact is violated.
verdicts! {
    v7: "v7" => [true, true, true];
    v5_double_dec: "v5-double-dec" => [true, true, true];
    v5_no_guard: "v5-no-guard" => [true, true, true];
    v6_no_switch_transfer: "v6-no-switch-transfer" => [true, true, true];
    v6_split_drops_flag: "v6-split-drops-flag" => [true, true, true];
    v6_u32_negate_32bit: "v6-u32-negate-32bit" => [true, true, true];
    v6_u32_negate_64bit: "v6-u32-negate-64bit" => [true, true, true];
    v7_partial_flag_snapshot: "v7-partial-flag-snapshot" => [true, true, true];
    v7_partial_snapshot_in_section: "v7-partial-snapshot-in-section" => [true, true, false];
    v7_fix_counted_bit: "v7-fix-counted-bit" => [false, false, false];
}

mod findings {
    use super::*;
    use Role::*;

    #[test]
    fn v5_two_lookups_decrement_one_folio() {
        let o = loom_mix("v5-double-dec", &[Lookup(0), Lookup(0)], &[0]);
        let cx = o.counterexample(COUNTER_EXACT).expect("v5's two lookups drift");
        assert!(cx.message.contains("is -1"), "{}", cx.message);
        let decrements = cx.steps.iter().filter(|s| s.function == "wb_stat_mod" && s.detail.contains("+= -1")).count();
        assert_eq!(decrements, 2, "two lookups, two decrements of one folio");
        assert!(loom_mix("v7", &[Lookup(0), Lookup(0)], &[0]).violated().is_empty(), "v7's atomic clear");
    }

    #[test]
    fn v7_lookup_against_a_page_table_dirtier_goes_negative() {
        let o = loom_mix("v7", &[PtlDirty(0), Lookup(0)], &[]);
        assert!(o.counterexample(COUNTER_EXACT).unwrap().message.contains("is -1"));
        assert!(functions(&o).contains("folio_account_dirtied"));
        let o = loom_mix("v7", &[PtlDirty(0), LockedLookup(0)], &[]);
        assert!(!o.violated().is_empty(), "FGP_LOCK does not help: the dirtier holds no folio lock");
    }

    #[test]
    fn v7_unlocked_lookup_against_writeback_leaks() {
        let o = loom_mix("v7", &[Writeback(0), Lookup(0)], &[0]);
        assert!(o.counterexample(COUNTER_EXACT).unwrap().message.contains("is 1"));
        assert!(functions(&o).contains("folio_clear_dirty_for_io"));
        let o = loom_mix("v7", &[Truncate(0), Lookup(0)], &[0]);
        assert!(functions(&o).contains("__folio_cancel_dirty"));
    }

    #[test]
    fn v7_lookup_across_a_switch_charges_the_wrong_wb() {
        let o = loom_mix("v7", &[Lookup(0), Switch], &[0]);
        let msg = &o.counterexample(COUNTER_EXACT).unwrap().message;
        assert!(msg.contains("wb1") && msg.contains("wb2"), "{msg}");
    }

    #[test]
    fn v7_end_of_writeback_drop_against_a_dirtier_leaks() {
        let o = loom_mix("v7", &[Writeback(0), PtlDirty(0)], &[]);
        assert!(functions(&o).contains("folio_end_dropbehind"));
    }

    /// The three-way race the partial fixes leave (the complete fix passes it in
    /// `v7_fix_counted_bit::loom`, which runs every role set).
    #[test]
    fn the_partial_fixes_leave_the_dirtier_writeback_switch_race() {
        let triple = [PtlDirty(0), Writeback(0), Switch];
        let o = loom_mix("v7-partial-snapshot-in-section", &triple, &[]);
        let msg = &o.counterexample(COUNTER_EXACT).expect("the partial fix drifts here").message;
        assert!(msg.contains("wb1") && msg.contains("wb2"), "{msg}");
    }

    #[test]
    fn folio_locked_roles_and_no_writeback_mappings_stay_exact_in_v7() {
        assert!(loom_mix("v7", &[WriteDirty(1), Writeback(1), LockedLookup(1)], &[]).violated().is_empty());
        assert!(loom_mix("v7", &[PtlDirty(2), Lookup(2)], &[]).violated().is_empty());
    }

    #[test]
    fn mixes_have_distinct_labels() {
        let labels: BTreeSet<String> = loom_mixes().iter().map(Mix::label).collect();
        assert_eq!(labels.len(), loom_mixes().len());
    }
}
