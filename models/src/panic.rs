//! The runner owns the panic hook.
//!
//! shuttle installs a process-wide hook on first use that reports every later panic, loom's
//! included, with whatever schedule is left in its thread-local store. wbcheck runs every checker
//! in one process, so it lets shuttle install that hook once, replaces it, and from then on:
//! a panic inside a checker run is captured silently (the harness turns it into a
//! `checker-error` counterexample, or recognises its own stop signal); any other panic is
//! printed as std would. Capture is per OS thread (loom and shuttle run a model's threads on the
//! thread that called them), so matrix rows may run on several threads at once.

use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static CAPTURING: Cell<usize> = const { Cell::new(0) };
    static FIRST_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Install wbcheck's hook (idempotent).
pub fn own_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Let shuttle install its hook now (it does so once per process), then replace it.
        shuttle::Runner::new(shuttle::scheduler::RoundRobinScheduler::new(1), quiet_shuttle_config()).run(|| {});
        let _shuttle_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            if CAPTURING.with(Cell::get) > 0 {
                FIRST_MESSAGE.with(|first| {
                    first.borrow_mut().get_or_insert_with(|| payload_message(info.payload()));
                });
            } else {
                eprintln!("{info}");
            }
        }));
    });
}

/// A shuttle configuration that prints nothing and persists no schedule (the recording
/// scheduler captures schedules).
pub fn quiet_shuttle_config() -> shuttle::Config {
    let mut config = shuttle::Config::new();
    config.failure_persistence = shuttle::FailurePersistence::None;
    config.silence_warnings = true;
    config
}

/// While alive, panics are captured silently; the first message is kept.
pub struct Capture(());

impl Capture {
    pub fn start() -> Capture {
        own_panic_hook();
        CAPTURING.with(|c| c.set(c.get() + 1));
        Capture(())
    }

    /// The first panic message captured since the last call.
    pub fn take_message(&self) -> Option<String> {
        FIRST_MESSAGE.with(|first| first.borrow_mut().take())
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        CAPTURING.with(|c| c.set(c.get() - 1));
    }
}

pub fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
