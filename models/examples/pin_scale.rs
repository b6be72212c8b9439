//! How large a wb-pin configuration 1,000 shuttle PCT iterations cover in under 10 s.
//! `cargo run --release -p wb-models --example pin_scale`
use wb_core::revision::PinRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::flusher::FlusherBounds;
use wb_models::harness::{run_shuttle, ShuttleKind};
use wb_models::wb_pin::{PinConfig, PinModel};

fn main() {
    let mut bounds = Bounds::defaults(Tier::Quick);
    bounds.shuttle_iterations = 1_000;
    for (writers, ops) in [(1, 1), (2, 2), (4, 4), (4, 16), (8, 16), (8, 64), (8, 128)] {
        let flusher = FlusherBounds { max_runs: 4 * writers * ops + 8, ..PinConfig::shuttle(Tier::Quick).flusher };
        let config = PinConfig { writers, ops_per_writer: ops, flusher, ..PinConfig::shuttle(Tier::Quick) };
        let model = PinModel { revision: PinRevision::V7FixSwitchKick, config };
        let o = run_shuttle(&model, ShuttleKind::Pct, &bounds);
        println!(
            "{writers} writers x {ops} ops: {} PCT iterations in {} ms, violated {:?}",
            o.executions,
            o.millis,
            o.violated()
        );
    }
}
