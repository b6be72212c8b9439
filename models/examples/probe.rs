//! Run one scenario's revisions under loom and the shuttle checkers and print each verdict
//! (`SHOW=1` also prints the first counterexample): `cargo run --release -p wb-models --example
//! probe -- SCENARIO [REVISION...]`. Bounds from the environment (`WBCHECK_*`, `LOOM_*`), tier
//! from `WBCHECK_TIER` (quick).
use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::Checker;
use wb_models::registry::find;

fn main() {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().unwrap_or_else(|| "dontcache-kick".into());
    let revs: Vec<String> = args.collect();
    let s = find(&scenario).expect("a known scenario");
    let tier = std::env::var("WBCHECK_TIER").ok().and_then(|t| Tier::from_name(&t)).unwrap_or(Tier::Quick);
    let b = Bounds::from_env(tier).unwrap();
    let checkers: Vec<Checker> = std::env::var("CHECKERS")
        .map(|c| c.split(',').filter_map(Checker::from_name).collect())
        .unwrap_or_else(|_| vec![Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom]);
    for r in s.info().revisions {
        if !revs.is_empty() && !revs.iter().any(|x| x == r.name) {
            continue;
        }
        for &c in &checkers {
            let o = s.run(r.name, c, &b).unwrap();
            println!(
                "{:26} {:15} configs={:3} exec={:8} ms={:7} bounded={} violated={:?}",
                r.name,
                c.name(),
                o.configurations,
                o.executions,
                o.millis,
                o.bounded,
                o.violated()
            );
            if std::env::var("SHOW").is_ok() {
                for cx in &o.counterexamples {
                    println!(
                        "  {}: {}\n  configuration: {}\n  placement: {}",
                        cx.property, cx.message, cx.configuration, cx.placement
                    );
                    print!("{}", wb_core::trace::format_steps(&cx.steps));
                }
            }
        }
    }
}
