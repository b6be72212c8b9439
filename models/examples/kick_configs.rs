//! Per-configuration loom cost and verdict of dontcache-kick: `cargo run --release -p wb-models
//! --example kick_configs -- REVISION [PREEMPTIONS] [TIER]`; with `SHOW=1` each counterexample too.
use std::sync::Arc;
use wb_core::revision::KickRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{kick_model, KickModel};
use wb_models::harness::run_loom;
use wb_models::outcome::Checker;

fn main() {
    let mut args = std::env::args().skip(1);
    let rev = KickRevision::from_name(&args.next().unwrap_or_else(|| "v7-fix-kick".into())).expect("a kick revision");
    let p: usize = args.next().map_or(1, |a| a.parse().unwrap());
    let tier = args.next().map_or(Tier::Quick, |t| Tier::from_name(&t).expect("a tier"));
    let model = kick_model(rev, Checker::Loom, tier);
    let bounds = Bounds::defaults(tier).with_loom_preemptions(Some(p));
    let (mut total, mut ms) = (0, 0);
    for s in model.setups.iter() {
        let m = KickModel { setups: Arc::new(vec![s.clone()]), ..model.clone() };
        let o = run_loom(&m, &bounds);
        total += o.executions;
        ms += o.millis;
        println!("{:8} exec {:6} ms  {:?}  {}", o.executions, o.millis, o.violated(), s.label());
        if std::env::var("SHOW").is_ok() {
            for c in &o.counterexamples {
                println!("  {}: {}", c.property, c.message);
                for st in &c.steps {
                    println!("     {:10} {}: {}", st.thread, st.function, st.detail);
                }
            }
        }
    }
    println!("total {total} executions, {ms} ms");
}
