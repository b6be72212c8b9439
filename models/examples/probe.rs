use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::Checker;
use wb_models::scenario::find;
fn main() {
    let s = find("dontcache-kick").unwrap();
    let b = Bounds::from_env(Tier::Quick).unwrap();
    let revs: Vec<String> = std::env::args().skip(1).collect();
    for r in s.info().revisions {
        if !revs.is_empty() && !revs.iter().any(|x| x == r.name) {
            continue;
        }
        for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
            let o = s.run(r.name, c, &b).unwrap();
            println!(
                "{:16} {:15} exec={:7} ms={:6} bounded={} violated={:?}",
                r.name,
                c.name(),
                o.executions,
                o.millis,
                o.bounded,
                o.violated()
            );
            if let Some(cx) = o.counterexamples.first() {
                if std::env::var("SHOW").is_ok() {
                    println!(
                        "  {} [{}] replay={:?}",
                        cx.message,
                        cx.placement,
                        cx.replay.as_deref().map(|s| &s[..s.len().min(80)])
                    );
                    print!("{}", wb_core::trace::format_steps(&cx.steps));
                }
            }
        }
    }
}
