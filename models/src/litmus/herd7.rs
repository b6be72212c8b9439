//! Running herd7, where it is installed: the executable from `$HERD7` or `PATH`, the LKMM from
//! the tools/memory-model directories of `$WBCHECK_LKMM_DIR` (one or more, `:`-separated, each
//! named by its directory: a kernel's `tools/memory-model`, or a copy such as `lkmm-6.12`), and
//! herd7's own library from `$HERDLIB` when its build needs one. wbcheck never needs herd7: when
//! it is absent, nothing here runs, and `litmus --run` prints loom's and SC's columns only.

use super::judge::{parse, Observation};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// herd7 and the LKMM copies to run it with.
#[derive(Debug, Clone)]
pub struct Herd7 {
    pub exe: PathBuf,
    /// (name, tools/memory-model directory).
    pub models: Vec<(String, PathBuf)>,
}

/// How long one herd7 run may take (`$WBCHECK_HERD7_SECS`, default 120 s).
fn time_limit() -> Duration {
    let secs = std::env::var("WBCHECK_HERD7_SECS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(120);
    Duration::from_secs(secs)
}

/// The executable `name` on `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

/// The herd7 executable: `$HERD7`, else `herd7` on `PATH`; `None` when there is none, an error
/// when `$HERD7` names no file.
pub fn executable() -> Result<Option<PathBuf>, String> {
    match std::env::var_os("HERD7") {
        Some(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            if p.is_file() {
                Ok(Some(p))
            } else {
                Err(format!("HERD7={} is not a file", p.display()))
            }
        }
        _ => Ok(on_path("herd7")),
    }
}

impl Herd7 {
    /// herd7 as the environment gives it: `None` when there is no herd7 or no LKMM directory;
    /// an error when a variable names something that is not there.
    pub fn from_env() -> Result<Option<Herd7>, String> {
        let Some(exe) = executable()? else { return Ok(None) };
        let Some(dirs) = std::env::var_os("WBCHECK_LKMM_DIR").filter(|d| !d.is_empty()) else { return Ok(None) };
        let models = std::env::split_paths(&dirs).map(Herd7::model).collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Herd7 { exe, models }))
    }

    /// A tools/memory-model directory and its name; an error when it has no linux-kernel.cfg.
    pub fn model(dir: PathBuf) -> Result<(String, PathBuf), String> {
        if !dir.join("linux-kernel.cfg").is_file() {
            return Err(format!(
                "{} has no linux-kernel.cfg: give a kernel's tools/memory-model directory",
                dir.display()
            ));
        }
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
        Ok((name, dir))
    }

    /// herd7's observation of `file` under the LKMM in `model`, or why there is none (a parse
    /// error, an unknown macro, the time limit).
    pub fn observe(&self, model: &Path, file: &Path) -> Result<Observation, String> {
        let file = std::path::absolute(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut args: Vec<std::ffi::OsString> = vec!["-conf".into(), "linux-kernel.cfg".into()];
        args.push(file.into());
        run(&self.exe, model, &args)
    }
}

/// Runs herd7 with `args` in `dir` under the time limit and returns its one observation.
pub fn run(exe: &Path, dir: &Path, args: &[std::ffi::OsString]) -> Result<Observation, String> {
    let (stdout, stderr) = output(exe, dir, args)?;
    match parse(&stdout)?.into_iter().next() {
        Some(o) => Ok(o),
        None => {
            let why = stderr.lines().chain(stdout.lines()).find(|s| !s.trim().is_empty()).unwrap_or("no output");
            Err(format!("herd7 printed no observation ({})", why.trim()))
        }
    }
}

/// The final states herd7 lists (the lines after `States N`), as it prints them.
pub fn states(stdout: &str) -> Vec<String> {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with("States "));
    let n = lines.next().and_then(|l| l.trim_start_matches("States ").trim().parse().ok()).unwrap_or(0);
    lines.take(n).map(|l| l.trim().to_string()).collect()
}

/// herd7's standard output and error for `args` run in `dir`, under the time limit.
pub fn output(exe: &Path, dir: &Path, args: &[std::ffi::OsString]) -> Result<(String, String), String> {
    output_within(exe, dir, args, time_limit())
}

/// [`output`] under the time limit `limit`.
pub fn output_within(
    exe: &Path,
    dir: &Path,
    args: &[std::ffi::OsString],
    limit: Duration,
) -> Result<(String, String), String> {
    let mut child = Command::new(exe)
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    // Read both pipes while herd7 runs, so that a long output cannot block it.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let start = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("herd7 ran past {} s (WBCHECK_HERD7_SECS)", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok((stdout, stderr))
}
