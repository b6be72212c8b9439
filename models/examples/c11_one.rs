use std::time::Instant;
fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let p = wb_models::c11::Program::parse(&text).unwrap();
    let t = Instant::now();
    let c = wb_models::c11::differential::compare(&p);
    println!("{c}{:.2}s", t.elapsed().as_secs_f64());
}
