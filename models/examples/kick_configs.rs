//! Per-configuration loom cost of dontcache-kick: `cargo run --release -p wb-models --example
//! kick_configs -- REVISION [PREEMPTIONS]`.
use std::sync::Arc;
use wb_core::revision::KickRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{kick_model, KickModel};
use wb_models::harness::run_loom;
use wb_models::outcome::Checker;

fn main() {
    let mut args = std::env::args().skip(1);
    let rev = KickRevision::from_name(&args.next().unwrap_or_else(|| "v7-fix-kick".into())).expect("a kick revision");
    let p: usize = args.next().map_or(2, |a| a.parse().unwrap());
    let model = kick_model(rev, Checker::Loom, Tier::Quick);
    let bounds = Bounds::defaults(Tier::Quick).with_loom_preemptions(Some(p));
    for s in model.setups.iter() {
        let m = KickModel { setups: Arc::new(vec![s.clone()]), ..model.clone() };
        let o = run_loom(&m, &bounds);
        println!("{:8} exec {:6} ms  {:?}  {}", o.executions, o.millis, o.violated(), s.label());
    }
}
