//! Checkers for the checker: a small language of C11 programs ([`program`]), run under the
//! checkers wbcheck depends on and compared with enumerators written independently of them.

pub mod differential;
pub mod gen;
pub mod herd;
pub mod program;
pub mod rc11;
pub mod run;
pub mod sc;

pub use program::{Mo, Op, Outcome, Program};
