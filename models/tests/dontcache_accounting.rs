//! One test per dontcache-accounting v7 finding on the configuration that shows it (and the ones
//! where it does not survive); the verdicts are in wb-checks' `expectations.rs`.

use std::collections::BTreeSet;
use std::sync::Arc;
use wb_core::pte::PteState;
use wb_core::revision::AccountingRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_accounting::{loom_mixes, DontcacheAccounting, Mix, Role, Start, COUNTER_EXACT};
use wb_models::harness::{run_loom, Model};
use wb_models::outcome::Outcome;

fn bounds() -> Bounds {
    Bounds::from_env(Tier::Quick).expect("valid bounds")
}

/// loom on one configuration: `roles` on folio 0 (or 2) from `dirty` and `pte`.
fn loom_mix(revision: &str, roles: &[Role], dirty: bool, pte: PteState) -> Outcome {
    let rev = AccountingRevision::from_name(revision).unwrap();
    let folio = if roles.iter().any(|r| format!("{r:?}").contains("(2)")) { 2 } else { 0 };
    let want = Mix { roles: roles.to_vec(), folio, start: Start { dirty, pte } };
    let mix = loom_mixes().into_iter().find(|m| *m == want);
    let model = DontcacheAccounting::model_for(rev);
    let model = wb_models::dontcache_accounting::AccountingModel {
        mixes: Arc::new(vec![mix.unwrap_or_else(|| panic!("{} is not in the scope", want.label()))]),
        ..model
    };
    assert_eq!(model.loom_variants().len(), 1);
    run_loom(&model, &bounds())
}

fn functions(o: &Outcome) -> BTreeSet<String> {
    o.counterexample(COUNTER_EXACT).unwrap().steps.iter().map(|s| s.function.clone()).collect()
}

mod findings {
    use super::*;
    use PteState::{Clean, Dirty, None as Unmapped};
    use Role::*;

    #[test]
    fn v5_two_lookups_decrement_one_folio() {
        let o = loom_mix("v5-double-dec", &[Lookup(0), Lookup(0)], true, Unmapped);
        let cx = o.counterexample(COUNTER_EXACT).expect("v5's two lookups drift");
        assert!(cx.message.contains("is -1"), "{}", cx.message);
        let decrements = cx.steps.iter().filter(|s| s.function == "wb_stat_mod" && s.detail.contains("+= -1")).count();
        assert_eq!(decrements, 2, "two lookups, two decrements of one folio");
        assert!(loom_mix("v7", &[Lookup(0), Lookup(0)], true, Unmapped).violated().is_empty(), "v7's atomic clear");
    }

    #[test]
    fn v7_unlocked_lookup_against_a_folio_locked_dirtier_goes_negative() {
        for dirtier in [DontcacheWrite(0), BufferedWrite(0)] {
            let o = loom_mix("v7", &[dirtier, Lookup(0)], false, Unmapped);
            assert!(o.counterexample(COUNTER_EXACT).unwrap().message.contains("is -1"), "{dirtier:?}");
            assert!(functions(&o).contains("folio_account_dirtied"));
        }
        let o = loom_mix("v7", &[Lookup(0), MkwriteFault(0)], false, Clean);
        assert!(!o.violated().is_empty(), "a write fault dirties under the folio lock too");
    }

    #[test]
    fn v7_fgp_lock_lookups_serialise_with_every_dirtier() {
        // A buffered write's write_begin (FGP_LOCK) waits for the dirtier's folio lock; zap, the
        // one dirtier without it, passes on a PTE's dirty bit only to a folio that is already
        // dirty in every consistent start.
        assert!(loom_mix("v7", &[DontcacheWrite(0), BufferedWrite(0)], false, Unmapped).violated().is_empty());
        assert!(loom_mix("v7", &[BufferedWrite(0), MkwriteFault(0)], false, Clean).violated().is_empty());
        assert!(loom_mix("v7", &[BufferedWrite(0), Zap(0)], true, Dirty).violated().is_empty());
    }

    #[test]
    fn v7_unlocked_lookup_against_a_cleaner_leaks() {
        let o = loom_mix("v7", &[Lookup(0), Writeback(0)], true, Unmapped);
        assert!(o.counterexample(COUNTER_EXACT).unwrap().message.contains("is 1"));
        assert!(functions(&o).contains("folio_clear_dirty_for_io"));
        let o = loom_mix("v7", &[Lookup(0), Truncate(0)], true, Unmapped);
        assert!(functions(&o).contains("__folio_cancel_dirty"));
    }

    #[test]
    fn v7_lookups_across_a_switch_charge_the_wrong_wb() {
        for lookup in [Lookup(0), BufferedWrite(0)] {
            let o = loom_mix("v7", &[lookup, Switch], true, Unmapped);
            let msg = &o.counterexample(COUNTER_EXACT).unwrap().message;
            assert!(msg.contains("wb1") && msg.contains("wb2"), "{lookup:?}: {msg}");
        }
    }

    #[test]
    fn v7_redirty_across_a_switch_is_moved_before_it_is_counted() {
        let o = loom_mix("v7", &[WritebackRedirty(0), Switch], true, Unmapped);
        let cx = o.counterexample(COUNTER_EXACT).unwrap();
        assert!(cx.message.contains("wb1 WB_DONTCACHE_DIRTY is -1"), "{}", cx.message);
        assert!(functions(&o).contains("folio_redirty_for_writepage"));
    }

    #[test]
    fn v7_migration_across_a_switch_leaves_the_count_behind() {
        let o = loom_mix("v7", &[Switch, Migrate], true, Unmapped);
        let cx = o.counterexample(COUNTER_EXACT).unwrap();
        assert!(cx.message.contains("wb1") && cx.message.contains("wb2"), "{}", cx.message);
        assert!(cx.steps.iter().any(|s| s.detail.contains("folio_migrate_flags: PG_dropbehind copied = 1")));
    }

    #[test]
    fn the_end_of_writeback_drop_no_longer_leaks_against_faithful_dirtiers() {
        // The old finding needed a dirtier that dirties a clean folio without its lock after
        // folio_end_dropbehind checked it: with PTE state, zap only passes on a dirty PTE, which
        // folio_mkclean has cleaned before writeback cleaned the folio.
        for (dirtier, pte) in [(DontcacheWrite(0), Unmapped), (MkwriteFault(0), Clean), (Zap(0), Dirty)] {
            let dirty = pte == Dirty;
            assert!(loom_mix("v7", &[dirtier, Writeback(0)], dirty, pte).violated().is_empty(), "{dirtier:?}");
        }
    }

    #[test]
    fn the_partial_fixes_leave_the_switch_races() {
        for revision in ["v7-partial-flag-snapshot", "v7-partial-snapshot-in-section"] {
            for roles in [&[WritebackRedirty(0), Switch][..], &[Switch, Migrate][..]] {
                let o = loom_mix(revision, roles, true, Unmapped);
                assert!(!o.violated().is_empty(), "{revision} {roles:?}");
            }
        }
    }

    #[test]
    fn no_writeback_mappings_stay_exact_in_v7() {
        assert!(loom_mix("v7", &[DontcacheWrite(2), Lookup(2)], false, Unmapped).violated().is_empty());
    }

    #[test]
    fn the_scope_holds_every_pair_once() {
        let mixes = loom_mixes();
        let labels: BTreeSet<String> = mixes.iter().map(Mix::label).collect();
        assert_eq!(labels.len(), mixes.len());
        // The role pairs the scope must hold (see the header).
        for roles in [
            [DontcacheWrite(0), Lookup(0)],
            [BufferedWrite(0), Switch],
            [WritebackRedirty(0), Switch],
            [Switch, Migrate],
            [Lookup(0), MkwriteFault(0)],
        ] {
            assert!(mixes.iter().any(|m| m.roles == roles), "{roles:?}");
        }
        assert_eq!(mixes.len(), 419);
    }
}
