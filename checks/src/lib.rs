//! wb-checks: the sequential reference models (oracles), the oracle checker and differential
//! driver, the verdict matrix and its renderings. The `wbcheck` binary is `src/main.rs`.

pub mod bench;
pub mod c11;
pub mod differential;
pub mod folio_dirty_sim;
pub mod fuzz;
pub mod matrix;
pub mod oracle;
pub mod picture;
pub mod pool;
pub mod progress;
pub mod render;
pub mod report;
pub mod seeds;
pub mod simulate;
pub mod svg;
