//! The runner owns the panic hook.
//!
//! shuttle installs a process-wide hook on first use that reports every later panic, loom's
//! included, with whatever schedule is left in its thread-local store. wbcheck runs every checker
//! in one process, so it lets shuttle install that hook once, replaces it, and from then on:
//! a panic inside a checker run is captured silently (the harness turns it into a
//! `checker-error` counterexample, or recognises its own stop signal); any other panic is
//! printed as std would.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

static CAPTURING: AtomicUsize = AtomicUsize::new(0);
static FIRST_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// Install wbcheck's hook (idempotent).
pub fn own_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Let shuttle install its hook now (it does so once per process), then replace it.
        shuttle::Runner::new(shuttle::scheduler::RoundRobinScheduler::new(1), quiet_shuttle_config()).run(|| {});
        let _shuttle_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            if CAPTURING.load(Ordering::Relaxed) > 0 {
                let mut first = FIRST_MESSAGE.lock().unwrap_or_else(|e| e.into_inner());
                if first.is_none() {
                    *first = Some(payload_message(info.payload()));
                }
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
        CAPTURING.fetch_add(1, Ordering::Relaxed);
        Capture(())
    }

    /// The first panic message captured since the last call.
    pub fn take_message(&self) -> Option<String> {
        FIRST_MESSAGE.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        CAPTURING.fetch_sub(1, Ordering::Relaxed);
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
