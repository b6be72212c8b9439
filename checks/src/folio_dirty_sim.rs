//! `wbcheck simulate folio-dirty`: a deterministic, seeded pgbench-shaped workload on one file
//! (a sequential read phase that populates the page cache, then random 8 KiB overwrites), run on
//! wb-core's sequential page-cache model once per folio policy of `folio-dirty-accounting`.
//!
//! The parameters ([`PGBENCH`]) were fixed and committed before the first run and are not tuned
//! towards seed 003's figures. Assumptions, stated before the run: 4 KiB blocks and pages;
//! PostgreSQL's 8 KiB page as the read and write size; a 2 MiB readahead window (an md array
//! sets a large read-ahead; 2 MiB is what lets readahead reach the seed's 2 MiB folios) and
//! maximum folio order 9 (PMD size); dirty limits far below the file size, as on a database much
//! larger than the dirty threshold; kupdate writeback approximated as a sync every
//! `periodic_writes` writes. The FADV policies' folio sizes are Chinner's description taken as
//! input (see `wb_core::fadvise`): the simulation measures the charge ratio given them and says
//! nothing about throughput.

use crate::svg::{Chart, Series};
use wb_core::address_space::{AddressSpace, DirtyLimits};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::fadvise::Geometry;
use wb_core::revision::FolioPolicy;
use wb_core::sync::{Ordering, Std};
use wb_core::trace::Trace;

/// The workload, all fixed (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub geometry: Geometry,
    pub limits: DirtyLimits,
    /// Random overwrites after the read phase, each `write_pages` pages at a `write_pages`-aligned
    /// offset.
    pub writes: u64,
    pub write_pages: u64,
    /// A kupdate-style writeback of everything dirty every so many writes.
    pub periodic_writes: u64,
    pub seed: u64,
}

/// 1 GiB file, 8 KiB reads and writes, 2 MiB readahead, order-9 folios, 64 MiB / 32 MiB dirty
/// limits, 400,000 overwrites with a kupdate pass every 20,000, seed 3 (the seed document's
/// number).
pub const PGBENCH: Params = Params {
    geometry: Geometry { file_pages: 262_144, read_pages: 2, ra_init_pages: 8, ra_max_pages: 512, max_order: 9 },
    limits: DirtyLimits { thresh: 16_384, bg_thresh: 8_192 },
    writes: 400_000,
    write_pages: 2,
    periodic_writes: 20_000,
    seed: 3,
};

/// The seed's figures (unpatched v7.3-rc7 under pgbench): ~159 TB charged, ~6 TB written.
pub const SEED_003_CHARGED_TB: f64 = 159.0;
pub const SEED_003_WRITTEN_TB: f64 = 6.0;

/// What one policy's run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimResult {
    pub charged_pages: i64,
    pub written_pages: i64,
    pub throttle_events: u64,
    /// Read-phase cost: folios cached and read I/Os issued.
    pub read_folios: usize,
    pub read_ios: u64,
}

impl SimResult {
    pub fn ratio(&self) -> f64 {
        self.charged_pages as f64 / self.written_pages.max(1) as f64
    }
}

/// splitmix64: the offsets' deterministic source.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Run `p` under `policy`.
pub fn run(policy: FolioPolicy, p: &Params) -> SimResult {
    let trace = std::sync::Arc::new(Trace::disabled());
    let ctx = Ctx::<Std>::new(trace, "pgbench", CpuPlan::Fixed(0));
    let read = policy.read_phase(&p.geometry);
    let mut file = AddressSpace::<Std>::after_read(policy, &p.geometry, p.limits);
    let mut rng = p.seed;
    let slots = p.geometry.file_pages / p.write_pages;
    for i in 1..=p.writes {
        file.buffered_write(&ctx, (next(&mut rng) % slots) * p.write_pages, p.write_pages);
        if i % p.periodic_writes == 0 {
            file.writeback(&ctx, -1);
        }
    }
    file.writeback(&ctx, -1);
    SimResult {
        charged_pages: file.stats.nr_dirtied.load(Ordering::Relaxed),
        written_pages: file.stats.written.load(Ordering::Relaxed),
        throttle_events: file.throttle_events,
        read_folios: read.folios.len(),
        read_ios: read.ios,
    }
}

/// The report: one row per policy, then the per-folio ratio against the maximum folio order.
pub fn report(p: &Params) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ =
        writeln!(out, "folio-dirty simulation (pgbench-shaped; parameters in wb_checks::folio_dirty_sim::PGBENCH)\n");
    let _ = writeln!(out, "| policy | pages charged | pages written | charged / written | throttle events | read-phase folios | read I/Os |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for policy in FolioPolicy::ALL {
        let r = run(policy, p);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} | {} | {} | {} |",
            policy.name(),
            r.charged_pages,
            r.written_pages,
            r.ratio(),
            r.throttle_events,
            r.read_folios,
            r.read_ios
        );
    }
    let _ = writeln!(
        out,
        "| seed 003, unpatched v7.3-rc7 | ~{SEED_003_CHARGED_TB} TB | ~{SEED_003_WRITTEN_TB} TB | ~27 | | | |"
    );
    let _ = writeln!(
        out,
        "\nThe FADV folio sizes are Chinner's description taken as input: these ratios say nothing about throughput."
    );
    let _ = writeln!(out, "\nper-folio charge: charged / written against the maximum folio order\n");
    let _ = writeln!(out, "| max order | charged / written | throttle events |");
    let _ = writeln!(out, "|---:|---:|---:|");
    for (order, r) in order_curve(p) {
        let _ = writeln!(out, "| {order} | {:.2} | {} |", r.ratio(), r.throttle_events);
    }
    out
}

/// The per-folio run at every maximum folio order 1..=9 (order 1 = the 8 KiB write size).
pub fn order_curve(p: &Params) -> Vec<(u32, SimResult)> {
    (1..=p.geometry.max_order)
        .map(|order| {
            let q = Params { geometry: Geometry { max_order: order, ..p.geometry }, ..*p };
            (order, run(FolioPolicy::PerFolio, &q))
        })
        .collect()
}

/// The SVG plot of [`order_curve`]: charged / written against the maximum folio order, with the
/// per-page line at 1.
pub fn svg(curve: &[(u32, SimResult)]) -> String {
    let line = |label: &str, y: &dyn Fn(&SimResult) -> f64| Series {
        label: label.into(),
        points: curve.iter().map(|(o, r)| (f64::from(*o), y(r))).collect(),
    };
    Chart {
        title: "dirty pages charged per page written".into(),
        x_label: "maximum folio order (pages = 2^order)".into(),
        y_label: "pages charged / pages written".into(),
        log_y: false,
        series: vec![line("per-folio (whole folio)", &SimResult::ratio), line("per-page (the series)", &|_| 1.0)],
    }
    .to_svg()
}
