//! Every configuration of dontcache-accounting's scope under loom, one at a time, with its
//! verdict: `cargo run --release -p wb-models --example accounting_mixes -- REVISION [FILTER]`
//! (bounds from the environment; FILTER keeps the configurations whose label contains it; `SHOW=1`
//! prints each counterexample).
use std::sync::Arc;
use wb_core::revision::AccountingRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_accounting::{AccountingModel, DontcacheAccounting};
use wb_models::harness::run_loom;

fn main() {
    let mut args = std::env::args().skip(1);
    let rev = args.next().unwrap_or_else(|| "v7".into());
    let filter = args.next().unwrap_or_default();
    let revision = AccountingRevision::from_name(&rev).expect("an accounting revision");
    let bounds = Bounds::from_env(Tier::Quick).unwrap();
    let model = DontcacheAccounting::model_for(revision);
    let (mut failing, mut total) = (0, 0);
    for mix in model.mixes.iter().filter(|m| m.label().contains(&filter)) {
        let m = AccountingModel { mixes: Arc::new(vec![mix.clone()]), ..model.clone() };
        let o = run_loom(&m, &bounds);
        total += 1;
        if !o.violated().is_empty() {
            failing += 1;
            println!("FAIL {:8} exec  {}", o.executions, mix.label());
            if std::env::var("SHOW").is_ok() {
                for cx in &o.counterexamples {
                    println!("  {}", cx.message);
                    print!("{}", wb_core::trace::format_steps(&cx.steps));
                }
            }
        }
    }
    println!("{failing} of {total} configurations fail");
}
