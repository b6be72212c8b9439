//! Which loom role sets of dontcache-accounting drift, per revision:
//! `cargo run --release -p wb-models --example accounting_mixes [revision]`
use wb_core::revision::AccountingRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_accounting::{loom_mixes, DontcacheAccounting};
use wb_models::harness::run_loom;
use wb_models::outcome::Checker;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "v7".into());
    let rev = AccountingRevision::from_name(&name).expect("revision");
    let bounds = Bounds::from_env(Tier::Quick).unwrap();
    for mix in loom_mixes() {
        let mut model = DontcacheAccounting::model_for(rev, Checker::Loom);
        model.variants = vec![mix.clone()];
        let o = run_loom(&model, &bounds);
        let v: Vec<_> = o.violated().into_iter().collect();
        println!("{:<80} {:>7} executions {:>6} ms {:?}", format!("{:?}", mix.roles), o.executions, o.millis, v);
        if std::env::var("SHOW").is_ok() {
            for cx in &o.counterexamples {
                println!("  {}", cx.message);
                print!("{}", wb_core::trace::format_steps(&cx.steps));
            }
        }
    }
}
