//! Expected verdicts of `per-block-charge` and `folio-dirty-accounting` under loom and both
//! shuttle checkers (the oracle column is tested in wb-checks), and what tells seed 003's two
//! readings of the per-page charge apart.

use std::collections::BTreeSet;
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::iomap::{ChargeReading, DirtyCharge};
use wb_core::memcg::{ForeignFlush, ForeignTarget, MemcgForeign};
use wb_core::revision::{BlockRevision, ForeignPolicy, Revision};
use wb_core::sync::Std;
use wb_core::trace::Trace;
use wb_models::bounds::{Bounds, Tier};
use wb_models::folio_dirty_accounting::{FolioDirtyAccounting, CHARGE_EQUALS_WRITTEN};
use wb_models::harness;
use wb_models::outcome::Checker;
use wb_models::per_block_charge::{
    configurations, BlockModel, BlockObjects, PerBlockCharge, Role, Start, Variants, CHARGE_DISCHARGE_MATCH,
    COUNTER_EXACT, DIRTIED_COMPLETE, FIRST_WB, WB_RECLAIMABLE_EXACT,
};
use wb_models::scenario::Scenario;

const CONCURRENT: [Checker; 3] = [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom];

fn set(p: &[&'static str]) -> BTreeSet<&'static str> {
    p.iter().copied().collect()
}

/// The control and the recommended fix pass; reading (a) of every per-page row fails
/// `dirtied-complete`, reading (b) never does; v7's lookup decrement drifts both readings of
/// the in-section fix, and our locked lookup does not.
#[test]
fn the_readings_and_the_lookup_fix_under_the_concurrent_checkers() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    for c in CONCURRENT {
        for rev in ["baseline-lookup-locked", "series-fix-lookup-locked-account-dirtied"] {
            let o = PerBlockCharge.run(rev, c, &b).unwrap();
            assert!(!o.bounded && o.violated().is_empty(), "{rev} {c:?}: {:#?}", o.counterexamples.first());
        }
        let cases: [(&str, &[&'static str]); 6] = [
            ("baseline", &[COUNTER_EXACT]),
            ("series", &[WB_RECLAIMABLE_EXACT, COUNTER_EXACT, DIRTIED_COMPLETE]),
            ("series-account-dirtied", &[WB_RECLAIMABLE_EXACT, COUNTER_EXACT]),
            ("series-fix-charge-in-section", &[COUNTER_EXACT, DIRTIED_COMPLETE]),
            ("series-fix-charge-in-section-account-dirtied", &[COUNTER_EXACT]),
            ("series-fix-lookup-locked", &[DIRTIED_COMPLETE]),
        ];
        for (rev, want) in cases {
            let o = PerBlockCharge.run(rev, c, &b).unwrap();
            assert_eq!(o.violated(), set(want), "{rev} {c:?}");
        }
        let o = PerBlockCharge.run("series-fix-discharge-nr-pages-account-dirtied", c, &b).unwrap();
        assert_eq!(o.violated(), set(&[CHARGE_DISCHARGE_MATCH, WB_RECLAIMABLE_EXACT, COUNTER_EXACT]), "{c:?}");
    }
}

/// Every revision that charges per page says which reading it is, in its summary (the README
/// catalogue's column), and the knob it selects agrees; the per-folio ones name none.
#[test]
fn every_per_page_row_names_its_reading() {
    let mut seen = BTreeSet::new();
    for rev in BlockRevision::all() {
        let k = rev.knobs();
        let named: Vec<ChargeReading> = [ChargeReading::OwnHelper, ChargeReading::AccountDirtied]
            .into_iter()
            .filter(|r| rev.summary().starts_with(&format!("{}: ", r.label())))
            .collect();
        if k.charge == DirtyCharge::PerFolio {
            assert!(named.is_empty(), "{}: a per-folio row names a reading", rev.name());
        } else {
            assert_eq!(named, vec![k.reading], "{}: summary {:?}", rev.name(), rev.summary());
            seen.insert((
                rev.name().trim_end_matches("-account-dirtied").to_string(),
                k.reading == ChargeReading::OwnHelper,
            ));
        }
    }
    // Both readings of every per-page revision.
    let names: BTreeSet<String> = seen.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(seen.len(), 2 * names.len(), "{seen:?}");
}

/// Without the lookups, reading (b)'s WB_DONTCACHE_DIRTY follows WB_RECLAIMABLE: in every
/// charge-only configuration it drifts exactly where WB_RECLAIMABLE does (the series' switch
/// move), so the fix is exact; reading (a)'s drifts with WB_RECLAIMABLE exact (writer, then the
/// flusher's discharge of a page never counted in).
#[test]
fn without_lookups_reading_b_counts_dontcache_pages_exactly_where_it_counts_reclaimable_ones() {
    let b = Bounds { loom_preemptions: Some(1), ..Bounds::from_env(Tier::Quick).unwrap() };
    let charge_only: Vec<[Role; 3]> =
        configurations().into_iter().filter(|r| r.iter().all(|x| Role::CHARGE.contains(x))).collect();
    assert_eq!(charge_only.len(), 4);
    let mut reading_a_drift_alone = 0;
    for rev in BlockRevision::all().filter(|r| r.knobs().charge == DirtyCharge::PerPage && r.knobs().mkclean_sync) {
        for &roles in &charge_only {
            for start in [Start::MappedDirty, Start::MappedClean] {
                let model = BlockModel { revision: rev, start, roles, tier: Tier::Quick, variants: Variants::One };
                let v = harness::run(&model, Checker::Loom, &b).unwrap().violated();
                let (dontcache, reclaimable) = (v.contains(COUNTER_EXACT), v.contains(WB_RECLAIMABLE_EXACT));
                match rev.knobs().reading {
                    ChargeReading::AccountDirtied => {
                        assert_eq!(dontcache, reclaimable, "{} {roles:?} {start:?}: {v:?}", rev.name())
                    }
                    ChargeReading::OwnHelper => reading_a_drift_alone += usize::from(dontcache && !reclaimable),
                }
            }
        }
    }
    assert!(reading_a_drift_alone > 0);
}

/// The consequence of reading (a) for seeds 000 and 001: the per-block folio's memcg (foreign to
/// the inode's wb) gets no (bdi, wb memcg) record, so its `mem_cgroup_flush_foreign` queues no
/// writeback of the wb holding its dirty pages; under reading (b) and in 6.12 it does. The ghost
/// hook calls of one buffered write are fed to the baseline `cgwb_frn` table (its races are
/// bdev-slots' subject), then the memcg is throttled.
#[test]
fn reading_a_leaves_the_foreign_memcg_nothing_to_flush() {
    const BDI_ID: i64 = 1;
    for (rev, flushes) in [
        (BlockRevision::Baseline, true),
        (BlockRevision::SeriesFixLookupLocked, false),
        (BlockRevision::SeriesFixLookupLockedAccountDirtied, true),
    ] {
        let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "t", CpuPlan::Fixed(0));
        let objects = BlockObjects::new(&ctx, rev, Start::MappedClean, 1, 2);
        objects.write(&ctx);
        let table = MemcgForeign::<Std>::new(4, ForeignPolicy::Baseline);
        for (&wb, &(_, _, _, hooks)) in &objects.effects().per_wb {
            for _ in 0..hooks {
                table.track(&ctx, ForeignTarget { owner: (BDI_ID, wb as i64), bdev: None }, 100, 10);
            }
        }
        let queued = table.flush(&ctx, 101, 10);
        let want = if flushes {
            vec![ForeignFlush::OwnerWb { slot: 0, owner: (BDI_ID, FIRST_WB as i64) }]
        } else {
            Vec::new()
        };
        assert_eq!(queued, want, "{}", rev.name());
    }
}

#[test]
fn per_page_passes_per_folio_fails() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    for c in [Checker::ShuttlePct, Checker::ShuttleRandom] {
        for (rev, fails) in [
            ("per-folio", true),
            ("per-page", false),
            ("fadv-random", false),
            ("fadv-random-write-64k", true),
            ("fadv-dontneed", true),
        ] {
            let o = FolioDirtyAccounting.run(rev, c, &b).unwrap();
            let want = if fails { BTreeSet::from([CHARGE_EQUALS_WRITTEN]) } else { BTreeSet::new() };
            assert_eq!(o.violated(), want, "{rev} {c:?}");
        }
    }
}

#[test]
fn unknown_revisions_are_errors() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    assert!(PerBlockCharge.run("v9", Checker::Loom, &b).unwrap_err().contains("series"));
    assert!(FolioDirtyAccounting.run("v9", Checker::Loom, &b).unwrap_err().contains("per-page"));
}
