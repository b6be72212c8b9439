//! seed 003: oracle verdicts, the over-accounting bound reached by a constructed worst case, and
//! proptest of wb-core's page cache against the independent reference.

use proptest::prelude::*;
use std::sync::Arc;
use wb_checks::oracle::folio_dirty_accounting::{RefFile, RefPolicy};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::revision::FolioPolicy;
use wb_core::sync::Std;
use wb_core::trace::Trace;
use wb_models::folio_dirty_accounting::{check, run_workload, GEOMETRY, OVER_ACCOUNTING_BOUND};

#[test]
fn the_bound_is_reached_by_one_block_per_largest_folio() {
    // Page 32 lies in a 16-page readahead folio (the 64-page file's largest): one block written
    // charges the whole folio, the ratio equals that folio's size / block size.
    let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "t", CpuPlan::Fixed(0));
    let m = run_workload(&ctx, FolioPolicy::PerFolio, &GEOMETRY, &[(32, 1), (0, 0)]);
    assert_eq!((m.charged, m.written), (16, 1), "{m:?}");
    assert!(check(&m).iter().all(|v| v.property != OVER_ACCOUNTING_BOUND), "reached, not exceeded");
    let over = wb_models::folio_dirty_accounting::Measured { charged: 33, ..m };
    assert!(check(&over).iter().any(|v| v.property == OVER_ACCOUNTING_BOUND), "one page more fails");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn core_matches_the_reference(writes in proptest::collection::vec((0u64..64, 1u64..9), 1..8), policy in 0usize..5) {
        let p = FolioPolicy::ALL[policy];
        let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "t", CpuPlan::Fixed(0));
        let mut core = wb_core::address_space::AddressSpace::<Std>::after_read(p, &GEOMETRY, wb_models::folio_dirty_accounting::LIMITS);
        let mut r = RefFile::new(RefPolicy::of(p), GEOMETRY.file_pages as usize);
        for &(page, pages) in &writes {
            core.buffered_write(&ctx, page, pages);
            r.write(page as usize, pages as usize);
            prop_assert_eq!(core.stats.nr_file_dirty.load(std::sync::atomic::Ordering::Relaxed), r.nr_file_dirty);
            prop_assert_eq!(core.dirty_block_pages(), r.dirty_pages());
        }
        core.writeback(&ctx, -1);
        r.sync();
        prop_assert_eq!(core.stats.written.load(std::sync::atomic::Ordering::Relaxed), r.written);
        prop_assert_eq!(core.stats.nr_dirtied.load(std::sync::atomic::Ordering::Relaxed), r.dirtied);
        if p == FolioPolicy::PerPage {
            prop_assert_eq!(r.dirtied, r.written);
        }
    }
}
