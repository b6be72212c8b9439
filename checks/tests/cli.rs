//! The `wbcheck` binary: bad input gets an error naming the bad value and the valid ones and exit
//! status 2, never a panic; the matrix JSON keeps its contract (docs/contract.md).

use std::io::BufRead;
use std::process::{Command, Output, Stdio};

fn wbcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wbcheck")).args(args).output().expect("wbcheck runs")
}

/// The error's first line names the bad value; the error (that line, or clap's list of possible
/// values under it) names a valid one.
fn assert_bad_input(args: &[&str], bad: &str, a_valid_one: &str) {
    let out = wbcheck(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: ") && first.contains(bad), "{args:?}: first line {first:?}");
    let error = stderr.split("\n\n").next().unwrap_or_default();
    assert!(error.contains(a_valid_one), "{args:?}: {error:?} names no valid value");
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"), "{args:?}: {stderr}");
}

#[test]
fn unknown_scenario() {
    assert_bad_input(&["run", "no-such", "--revision", "v7", "--checker", "loom"], "'no-such'", "dontcache-kick");
    assert_bad_input(&["matrix", "--scenario", "no-such"], "'no-such'", "dontcache-kick");
    assert_bad_input(&["explain", "no-such"], "'no-such'", "dontcache-kick");
}

#[test]
fn unknown_revision() {
    assert_bad_input(&["run", "dontcache-kick", "--revision", "v99", "--checker", "loom"], "'v99'", "v7-posted");
    assert_bad_input(&["matrix", "--revision", "v99"], "'v99'", "v5-late-clear");
}

#[test]
fn unknown_checker() {
    assert_bad_input(&["run", "dontcache-kick", "--revision", "v7", "--checker", "genmc"], "'genmc'", "shuttle-pct");
    assert_bad_input(&["matrix", "--checker", "genmc"], "'genmc'", "oracle");
}

#[test]
fn bad_format_and_tier() {
    assert_bad_input(&["matrix", "--format", "xml"], "'xml'", "json");
    assert_bad_input(&["list", "--format", "md"], "'md'", "json");
    assert_bad_input(&["matrix", "--tier", "huge"], "'huge'", "deep");
    assert_bad_input(
        &["run", "dontcache-kick", "--revision", "v7", "--checker", "oracle", "--format", "yaml"],
        "'yaml'",
        "text",
    );
}

/// `.ci/run` reads the catalogue from `wbcheck list --format json`: the text listing's
/// scenarios, revisions and expected verdicts, every checker of every revision.
#[test]
fn list_json_is_the_text_listing() {
    let json = wbcheck(&["list", "--format", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object on stdout");
    assert_eq!(v["tool"], "wbcheck");
    let mut from_json = Vec::new();
    for s in v["scenarios"].as_array().unwrap() {
        for r in s["revisions"].as_array().unwrap() {
            assert_eq!(r["expected"].as_object().unwrap().len(), 4, "{r}");
            let verdicts: Vec<String> = ["loom", "shuttle-pct", "shuttle-random", "oracle"]
                .map(|c| {
                    let verdict = format!("{c}={}", r["expected"][c].as_str().unwrap());
                    match r["may_miss"][c].as_array() {
                        Some(p) => {
                            let p: Vec<&str> = p.iter().map(|p| p.as_str().unwrap()).collect();
                            format!("{verdict}(may miss {})", p.join(","))
                        }
                        None => verdict,
                    }
                })
                .into();
            from_json.push(format!(
                "{} {} {}",
                s["name"].as_str().unwrap(),
                r["name"].as_str().unwrap(),
                verdicts.join(" ")
            ));
        }
    }
    let text = String::from_utf8(wbcheck(&["list"]).stdout).unwrap();
    let mut from_text = Vec::new();
    let mut scenario = "";
    for line in text.lines() {
        if let Some((name, _)) = line.split_once(": ").filter(|_| !line.starts_with(' ')) {
            scenario = name;
        } else if let Some(rest) = line.strip_prefix("  revision ") {
            from_text.push(format!("{scenario} {}", rest.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
    }
    assert_eq!(from_json, from_text);
    assert!(from_json.iter().any(|r| r.contains("shuttle-pct=pass shuttle-random=pass")));
    assert!(from_json.iter().any(|r| r.contains("shuttle-random=fail(may miss use-after-free)")));
}

/// `wbcheck list | head -1`: a reader that goes away ends wbcheck quietly with status 0, as it
/// ends `cat`, not in a panic about the broken pipe.
#[test]
fn a_closed_stdout_ends_quietly() {
    let spawn = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_wbcheck"));
        cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("wbcheck runs")
    };
    let assert_quiet = |args: &[&str], out: Output| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    };
    // As `head -1` does: read a line, then close the pipe.
    let mut child = spawn(&["list"]);
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("dontcache-kick: "), "{line}");
    assert_quiet(&["list"], child.wait_with_output().unwrap());
    // Closed before the first byte, so every command meets the closed pipe whatever it prints.
    for args in [
        &["list", "--format", "json"][..],
        &["explain", "wb-pin"],
        &["litmus", "dontcache-kick", "--revision", "v7"],
        &["run", "dontcache-kick", "--revision", "v7", "--checker", "oracle"],
        &["matrix", "--scenario", "percpu-counter", "--checker", "oracle"],
        &["simulate", "foreign-flush"],
    ] {
        let mut child = spawn(args);
        drop(child.stdout.take());
        assert_quiet(args, child.wait_with_output().unwrap());
    }
}

#[test]
fn bad_environment_bound() {
    let out = Command::new(env!("CARGO_BIN_EXE_wbcheck"))
        .args(["matrix", "--checker", "oracle"])
        .env("WBCHECK_SHUTTLE_ITERS", "lots")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.lines().next().unwrap().contains("WBCHECK_SHUTTLE_ITERS"), "{stderr}");
}

#[test]
fn malformed_replay_string() {
    for bad in ["garbage", "shuttle1:1,zz", "shuttle1:7*5"] {
        assert_bad_input(
            &["replay", "dontcache-kick", "--revision", "v5-late-clear", "--checker", "shuttle-pct", "--schedule", bad],
            "replay",
            "",
        );
    }
}

#[test]
fn matrix_json_contract() {
    let out =
        wbcheck(&["matrix", "--scenario", "dontcache-kick", "--checker", "oracle", "--format", "json", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    assert_eq!(v["tool"], "wbcheck");
    assert!(v["version"].is_string());
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 20);
    for r in results {
        assert!(r["configurations"].as_u64().is_some_and(|n| n > 1), "row without its configuration count: {r}");
        for key in [
            "scenario",
            "revision",
            "checker",
            "expected",
            "verdict",
            "executions",
            "millis",
            "bounds",
            "property",
            "counterexample",
            "violated",
            "expected_violated",
            "counterexamples",
            "min_preemptions",
        ] {
            assert!(r.get(key).is_some(), "row without {key}: {r}");
        }
        assert_eq!(r["checker"], "oracle");
    }
    let failing = results.iter().find(|r| r["revision"] == "v5-approx-read").unwrap();
    assert_eq!(failing["verdict"], "fail");
    assert_eq!(failing["property"], "expedition");
    assert_eq!(failing["violated"], serde_json::json!(["expedition"]));
    assert!(failing["counterexample"]["steps"].as_array().unwrap().len() >= 3);
    assert!(failing["counterexamples"]["expedition"]["steps"][0]["function"].is_string());
    assert_eq!(v["summary"], serde_json::json!({"total": 20, "matched": 20, "mismatched": 0, "may_miss": []}));
}

#[test]
fn run_prints_a_readable_counterexample_and_replay_reproduces_it() {
    let out = wbcheck(&[
        "run",
        "dontcache-kick",
        "--revision",
        "v5-late-clear",
        "--checker",
        "shuttle-pct",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let replay = row["counterexample"]["replay"].as_str().unwrap();
    let out = wbcheck(&[
        "replay",
        "dontcache-kick",
        "--revision",
        "v5-late-clear",
        "--checker",
        "shuttle-pct",
        "--schedule",
        replay,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("property expedition violated"), "{text}");
    let last =
        row["counterexample"]["steps"].as_array().unwrap().last().unwrap()["detail"].as_str().unwrap().to_string();
    assert!(text.contains(&last), "the replayed trace does not end like the counterexample");
}

#[test]
fn simulate_foreign_flush() {
    let out = wbcheck(&["simulate", "foreign-flush"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("| overwritten-file device writes (GiB) |") && stdout.contains("| never"), "{stdout}");
    assert_bad_input(&["simulate", "fio"], "'fio'", "foreign-flush");
}

#[test]
fn replay_of_a_fuzz_input() {
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions/sched_wb_pin/v6-unpinned.use-after-free");
    let out = wbcheck(&["replay", "wb-pin", "--revision", "v6-unpinned", "--fuzz-input", input]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("cgwb_free_rcu") && text.contains("property use-after-free violated"), "{text}");
    let schedule = text.lines().find_map(|l| l.strip_prefix("schedule: ")).expect("the schedule line");
    let again = wbcheck(&["replay", "wb-pin", "--revision", "v6-unpinned", "--schedule", schedule]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), text, "the schedule string replays the same trace");

    let missing = wbcheck(&["replay", "wb-pin", "--revision", "v6-unpinned", "--fuzz-input", "/no/such/file"]);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.starts_with("error: cannot read /no/such/file"), "{err}");
    let neither = wbcheck(&["replay", "wb-pin", "--revision", "v6-unpinned"]);
    assert_eq!(neither.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&neither.stderr).contains("panicked"));
}

#[test]
fn sharded_matrix_merges_into_the_whole() {
    let dir = std::env::temp_dir().join(format!("wbcheck-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = ["matrix", "--scenario", "percpu-counter", "--format", "json", "--quiet"];
    // The whole run uses the process pool (a process per row), the shards one process each.
    let whole: serde_json::Value =
        serde_json::from_slice(&wbcheck(&[&args[..], &["--jobs", "3"]].concat()).stdout).unwrap();
    let mut files = Vec::new();
    for i in 1..=3 {
        let out = wbcheck(&[&args[..], &["--shard", &format!("{i}/3"), "--jobs", "1"]].concat());
        assert!(out.status.success(), "shard {i}: {}", String::from_utf8_lossy(&out.stderr));
        let part: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(part["shard"], format!("{i}/3"));
        let file = dir.join(format!("{i}.json"));
        std::fs::write(&file, &out.stdout).unwrap();
        files.push(file.to_string_lossy().into_owned());
    }
    // Any order.
    files.reverse();
    let merged =
        wbcheck(&[&["merge", "--format", "json"][..], &files.iter().map(String::as_str).collect::<Vec<_>>()].concat());
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert!(merged.get("shard").is_none());
    let (w, m) = (whole["results"].as_array().unwrap(), merged["results"].as_array().unwrap());
    assert_eq!(w.len(), m.len());
    for (w, m) in w.iter().zip(m) {
        for key in ["scenario", "revision", "checker", "verdict", "matched"] {
            assert_eq!(w[key], m[key], "{key} of {w:?}");
        }
        if w["checker"].as_str().unwrap().starts_with("shuttle") {
            // Every shard ran its share of the iterations with its own seed.
            assert_eq!(m["bounds"]["iterations"], w["bounds"]["iterations"]);
        } else {
            assert_eq!((&w["executions"], &w["violated"]), (&m["executions"], &m["violated"]));
        }
    }
    assert_eq!(merged["summary"], whole["summary"]);

    let missing = wbcheck(&["merge", &files[0], &files[1]]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("once each"));
    let not_json = wbcheck(&["merge", concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")]);
    assert_eq!(not_json.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loom row split below the row (its units over shards, or over `--jobs` processes) and joined
/// again is the row one process runs: the same executions (iterative deepening stopped where one
/// process stops it), verdict, and counterexamples with the same replay handles.
#[test]
fn a_loom_row_split_over_processes_is_the_single_process_row() {
    // A row failing at bound 0, a pass, a row failing at bound 1 only (deepening stops after it).
    let rows = [("per-block-charge", "baseline"), ("dontcache-accounting", "v7"), ("bdev-slots", "packed")];
    let whole = split_rows_match("units", &rows, &[]);
    let bounds = whole.iter().map(|r| r["min_preemptions"].as_u64()).collect::<Vec<_>>();
    assert_eq!(bounds, [Some(0), None, Some(1)]);
}

/// The same with each unit's search split by schedule prefix (`WBCHECK_LOOM_SLICES`): wb-pin's
/// rows are one unit each, so their slices are what the processes share. The sliced row has the
/// unsliced row's verdict and counterexample bounds (its search explores some forks in full: at
/// least as many executions).
#[test]
fn a_loom_row_split_by_prefix_is_the_single_process_row() {
    let rows = [("wb-pin", "v7"), ("wb-pin", "v7-fix-switch-kick"), ("bdev-slots", "packed")];
    let env = [("WBCHECK_LOOM_PREEMPTIONS", "1")];
    let sliced = split_rows_match("slices", &rows, &[env[0], ("WBCHECK_LOOM_SLICES", "3:6:2")]);
    let out = Command::new(env!("CARGO_BIN_EXE_wbcheck"))
        .args(matrix_args(&rows))
        .env("WBCHECK_LOOM_PREEMPTIONS", "1")
        .output()
        .unwrap();
    let plain: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (s, p) in sliced.iter().zip(plain["results"].as_array().unwrap()) {
        for key in ["verdict", "violated", "min_preemptions"] {
            assert_eq!(s[key], p[key], "{key} of {} {}", s["scenario"], s["revision"]);
        }
        assert!(s["executions"].as_u64() >= p["executions"].as_u64());
        assert_eq!(s["bounds"]["slices"], 3);
        for cx in s["counterexamples"].as_object().unwrap().values() {
            assert!(cx["replay"].as_str().unwrap().contains("/3@6w2:"), "{cx}");
        }
    }
    // A sliced counterexample replays: its handle names the slice.
    let (property, cx) = sliced[0]["counterexamples"].as_object().unwrap().iter().next().unwrap();
    let out = wbcheck(&["replay", "wb-pin", "--revision", "v7", "--schedule", cx["replay"].as_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(&format!("property {property} violated")), "{text}");
}

fn matrix_args<'a>(rows: &[(&'a str, &'a str)]) -> Vec<&'a str> {
    let mut args = vec!["matrix", "--checker", "loom", "--format", "json", "--quiet"];
    for (scenario, revision) in rows {
        args.extend(["--scenario", scenario, "--revision", revision]);
    }
    args
}

/// Run `rows` as one process, as 4 shards merged and with `--jobs 3`, under `env`; check that the
/// three agree field by field and that merge refuses a part twice, a unit missing or parts run
/// with different bounds. Returns the one process's rows.
fn split_rows_match(tag: &str, rows: &[(&str, &str)], env: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let dir = std::env::temp_dir().join(format!("wbcheck-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = matrix_args(rows);
    let run = |extra: &[&str]| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_wbcheck"))
            .args([&args[..], extra].concat())
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let whole = run(&["--jobs", "1"]);
    let mut files = Vec::new();
    for i in 1..=4 {
        let shard = run(&["--shard", &format!("{i}/4"), "--jobs", "1"]);
        // Each shard has a share of every row's units.
        assert!(shard["results"].as_array().unwrap().iter().all(|r| r["part"]["units"].as_u64() > Some(1)));
        let file = dir.join(format!("{i}.json"));
        std::fs::write(&file, shard.to_string()).unwrap();
        files.push(file.to_string_lossy().into_owned());
    }
    let merged =
        wbcheck(&[&["merge", "--format", "json"][..], &files.iter().map(String::as_str).collect::<Vec<_>>()].concat());
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    // A part repeated in two shards, or a unit no shard ran, is bad input.
    let shard = |i: usize| -> serde_json::Value { serde_json::from_slice(&std::fs::read(&files[i]).unwrap()).unwrap() };
    let (mut twice, mut missing, mut other) = (shard(1), shard(1), shard(1));
    twice["results"][0]["part"] = shard(0)["results"][0]["part"].clone();
    missing["results"][0]["part"]["selected"].as_array_mut().unwrap().pop();
    other["results"][0]["bounds"]["max_branches"] = 7.into();
    for (bad, why) in
        [(twice, "in two parts"), (missing, "no shard ran units"), (other, "different bounds (max_branches)")]
    {
        let file = dir.join("bad.json");
        std::fs::write(&file, bad.to_string()).unwrap();
        let out = wbcheck(&["merge", &files[0], file.to_str().unwrap(), &files[2], &files[3]]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
    }
    let pooled = run(&["--jobs", "3"]);
    let rows = whole["results"].as_array().unwrap();
    assert_eq!(rows.len(), args.iter().filter(|a| **a == "--scenario").count());
    for split in [&merged, &pooled] {
        for (w, m) in rows.iter().zip(split["results"].as_array().unwrap()) {
            assert!(m.get("part").is_none(), "{m}");
            for key in
                ["scenario", "revision", "verdict", "matched", "executions", "violated", "property", "min_preemptions"]
            {
                assert_eq!(w[key], m[key], "{key} of {} {}", w["scenario"], w["revision"]);
            }
            for (property, cx) in w["counterexamples"].as_object().unwrap() {
                let other = &m["counterexamples"][property];
                for key in ["replay", "min_preemptions", "placement", "configuration", "steps", "message"] {
                    assert_eq!(cx[key], other[key], "{key} of {property}");
                }
                assert_eq!(cx["found"]["executions"], other["found"]["executions"]);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    rows.clone()
}

#[test]
fn bad_shard_and_jobs() {
    for bad in ["0/2", "3/2", "1", "a/b", "1/0"] {
        assert_bad_input(&["matrix", "--scenario", "percpu-counter", "--shard", bad], bad, "I/N");
    }
    assert_bad_input(&["matrix", "--scenario", "percpu-counter", "--jobs", "0"], "--jobs", "at least 1");
}

#[test]
fn litmus_export_and_its_bad_input() {
    let out = wbcheck(&["litmus", "dontcache-kick", "--revision", "v7-posted-no-mb"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("C dontcache-kick+v7-posted-no-mb\n") && text.contains(" * Result: Sometimes\n"),
        "{text}"
    );
    let out = wbcheck(&["litmus", "wb-pin", "--revision", "v7", "--shape", "switch-kick"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("C wb-pin+v7+switch-kick\n"));
    assert_bad_input(&["litmus", "foreign-policy", "--revision", "v7"], "'foreign-policy'", "wb-pin");
    assert_bad_input(&["litmus", "dontcache-kick", "--revision", "v99"], "'v99'", "v7-posted");
    assert_bad_input(&["litmus", "wb-pin", "--revision", "v7", "--shape", "nope"], "'nope'", "i-wb-switch");
    assert_bad_input(&["litmus", "wb-pin"], "required", "--revision");
}

/// The judge on saved herd7 output: the committed sample of herd7 7.58's output agrees with
/// its export's Result line; a disagreement exits 1 and says which.
#[test]
fn litmus_judge_reads_herd7_output() {
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/litmus/herd7-output/");
    let out = wbcheck(&["litmus", "--judge-log", &format!("{samples}dontcache-kick+v7-posted-no-mb.out")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("ok   dontcache-kick+v7-posted-no-mb: predicted Sometimes, herd7 Sometimes 1 3"), "{text}");
    let dir = std::env::temp_dir().join(format!("wbcheck-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wrong = std::fs::read_to_string(format!("{samples}dontcache-kick+v7.written.out"))
        .unwrap()
        .replace("Never 0 3", "Sometimes 1 2");
    let log = dir.join("wrong.out");
    std::fs::write(&log, wrong).unwrap();
    let out = wbcheck(&["litmus", "--judge-log", log.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL dontcache-kick+v7: predicted Never, herd7 Sometimes 1 2: non-Never verification"),
        "{text}"
    );
    std::fs::write(&log, "herd7: fatal error\n").unwrap();
    assert_bad_input(&["litmus", "--judge-log", log.to_str().unwrap()], "no herd7 Observation", "Observation");
    assert_bad_input(&["litmus", "--judge", "/nonexistent"], "linux-kernel.cfg", "tools/memory-model");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `litmus --run`: committed exports agree with loom (0), a wrong Result line is a disagreement
/// (1), an unsupported construct or a missing file is bad input (2) with the construct and its
/// line named, never a panic.
#[test]
fn litmus_run_exit_statuses() {
    let exports = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/litmus/");
    let v7 = format!("{exports}dontcache-kick+v7.litmus");
    let no_mb = format!("{exports}dontcache-kick+v7-posted-no-mb.litmus");
    let out = wbcheck(&["litmus", "--run", &v7, &no_mb]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Observation dontcache-kick+v7-posted-no-mb Sometimes 1 3 (loom)"), "{text}");
    assert!(text.contains("Observation dontcache-kick+v7-posted-no-mb Never 0 3 (sc)"), "{text}");
    assert!(text.contains("ok   dontcache-kick+v7: predicted Never, loom Never 0 3"), "{text}");
    assert!(
        text.contains("\n2 of 2 tests with a Result line agree with loom (0 without one or with an LKMM flag)\n"),
        "{text}"
    );
    // herd7 named but absent is bad input, not a run without herd7.
    let out = Command::new(env!("CARGO_BIN_EXE_wbcheck"))
        .args(["litmus", "--run", &v7])
        .env("HERD7", "/nonexistent/herd7")
        .env("WBCHECK_LKMM_DIR", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: HERD7=/nonexistent/herd7 is not a file"), "{stderr}");
    let dir = std::env::temp_dir().join(format!("wbcheck-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read_to_string(&no_mb).unwrap();
    let wrong = dir.join("wrong.litmus");
    std::fs::write(&wrong, original.replace("Result: Sometimes", "Result: Never")).unwrap();
    let out = wbcheck(&["litmus", "--run", &v7, wrong.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "FAIL dontcache-kick+v7-posted-no-mb: predicted Never, loom Sometimes 1 3: non-Never verification"
        ),
        "{text}"
    );
    let bad = dir.join("bad.litmus");
    std::fs::write(&bad, original.replace("\tr0 = READ_ONCE(*start);", "\twhile (1) { }")).unwrap();
    let line = original.lines().position(|l| l.starts_with("\tr0 = READ_ONCE(*start);")).unwrap() + 1;
    for (args, message) in [
        (vec![bad.to_str().unwrap()], format!("bad.litmus: line {line}: unsupported construct: a loop ('while')")),
        (vec!["/nonexistent.litmus"], "/nonexistent.litmus: No such file".to_string()),
    ] {
        let out = wbcheck(&[&["litmus", "--run"], args.as_slice()].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.lines().next().unwrap().contains(&message), "{stderr}");
        assert!(!stderr.contains("panicked") && out.stdout.is_empty(), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn loom_counterexamples_replay_from_their_handle() {
    let args = ["run", "dontcache-kick", "--revision", "v5-late-clear", "--checker", "loom", "--format", "json"];
    let out = wbcheck(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(row["min_preemptions"].is_u64() && row["counterexample"]["min_preemptions"] == row["min_preemptions"]);
    let handle = row["counterexample"]["replay"].as_str().unwrap();
    assert!(handle.starts_with("loom1:quick:"), "{handle}");
    let out = wbcheck(&["replay", "dontcache-kick", "--revision", "v5-late-clear", "--schedule", handle]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let steps: Vec<wb_checks::matrix::StepJson> =
        serde_json::from_value(row["counterexample"]["steps"].clone()).unwrap();
    assert!(text.starts_with("configuration: dontcache-writer"), "{text}");
    let lines: Vec<&str> =
        text.lines().skip_while(|l| !l.starts_with("placement:")).skip(1).take(steps.len()).collect();
    assert_eq!(lines.len(), steps.len(), "{text}");
    for (line, s) in lines.iter().zip(&steps) {
        // The replay prints each step's stale-read marks after its detail, as the JSON has them.
        let want = format!("{}  {}: {}", s.thread, s.function, s.marked_detail());
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words(line).ends_with(&words(&want)), "{line:?} vs {want:?}");
    }
    assert!(text.contains("property expedition violated") && text.contains(&format!("schedule: {handle}")));

    for bad in ["loom1:quick:0:0:1", "loom1:quick:0:x:1:3", "loom1:huge:0:0:1:3", "loom1:quick:0:0:1:0"] {
        assert_bad_input(&["replay", "dontcache-kick", "--revision", "v5-late-clear", "--schedule", bad], "loom", "");
    }
    assert_bad_input(
        &["replay", "dontcache-kick", "--revision", "v5-late-clear", "--schedule", "loom1:quick:99:0:1:3"],
        "variant 99",
        "",
    );
    assert_bad_input(
        &["replay", "dontcache-kick", "--revision", "v5-late-clear", "--schedule", "loom1:deep:0:0:1:3"],
        "--tier deep",
        "",
    );
    assert_bad_input(
        &["replay", "dontcache-kick", "--revision", "v5-late-clear", "--schedule", "loom1:quick:0:0:1:999999"],
        "not from this source",
        "",
    );
}

#[test]
fn progress_is_silent_when_stderr_is_not_a_terminal() {
    let out = wbcheck(&["matrix", "--scenario", "dontcache-kick", "--checker", "oracle"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("20 rows, 20 matched"));
}

#[test]
fn bad_bench_arguments() {
    assert_bad_input(&["bench", "--quick", "--seeds", "0"], "'0'", "at least 1");
    assert_bad_input(&["bench", "--quick", "--seeds", "many"], "'many'", "at least 1");
}

/// `matrix --seeds N`: the shuttle rows once per seed, each with its outcomes and their seeds; a
/// row whose checker may miss a property is listed; loom and oracle rows take no seed.
#[test]
fn matrix_over_seeds() {
    let args = ["matrix", "--seeds", "2", "--scenario", "wb-pin", "--revision", "put-before-wakeup", "--quiet"];
    // Fewer iterations than the quick tier's: enough for both rows' lost expedition with both seeds.
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_wbcheck"))
            .args([&args[..], extra].concat())
            .env("WBCHECK_SHUTTLE_ITERS", "2000")
            .output()
            .expect("wbcheck runs")
    };
    let out = run(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    assert_eq!(v["seeds"], serde_json::json!([1, 2]));
    let rows = v["rows"].as_array().unwrap();
    let checkers: Vec<&str> = rows.iter().map(|r| r["checker"].as_str().unwrap()).collect();
    assert_eq!(checkers, ["shuttle-pct", "shuttle-random"]);
    for r in rows {
        assert_eq!(r["matched"], true, "{r}");
        let seeds: Vec<u64> = r["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|o| o["seeds"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap()))
            .collect();
        assert_eq!(seeds.len(), 2, "every seed has one outcome: {r}");
    }
    assert_eq!(rows[1]["may_miss"], serde_json::json!(["use-after-free"]));
    assert_eq!(v["summary"]["mismatched"], 0);
    let text = String::from_utf8(run(&[]).stdout).unwrap();
    assert!(text.contains("2 shuttle rows x 2 (seeds 1..=2)"), "{text}");
    assert_bad_input(&["matrix", "--seeds", "2", "--checker", "loom"], "loom", "shuttle-random");
    assert_bad_input(&["matrix", "--seeds", "0"], "--seeds", "at least 1");
}

#[test]
fn c11_check_campaign_and_export() {
    let ok = wbcheck(&["c11", "check", "T0: x.store(2, rel) | T1: x.swap(1, rlx)"]);
    let text = String::from_utf8_lossy(&ok.stdout);
    assert_eq!(ok.status.code(), Some(0), "{text}");
    assert!(text.contains("loom: 2 final states") && !text.contains("forbidden"), "{text}");

    let campaign = wbcheck(&["c11", "campaign", "--programs", "30", "--seed", "5", "--shape", "2x3x2", "--jobs", "2"]);
    let text = String::from_utf8_lossy(&campaign.stdout);
    assert_eq!(campaign.status.code(), Some(0), "{text}");
    assert!(text.contains("30 programs (shape 2x3x2, seed 5): 0 with a mismatch"), "{text}");

    let dir = std::env::temp_dir().join(format!("wbcheck-c11-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = wbcheck(&["c11", "export", "--programs", "12", "--seed", "3", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 12);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        wb_models::c11::herd::check_syntax(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", f.display()));
        assert!(!text.contains("lock("), "{}: exports have no mutex", f.display());
        assert!(text.contains("atomic_") && text.contains("locations ["), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn c11_bad_input() {
    for (args, bad) in [
        (&["c11", "check", "T0: x.frob(1)"][..], "frob"),
        (&["c11", "check", "T0: w.load()"][..], "w"),
        (&["c11", "campaign", "--shape", "9x3x2"][..], "'9x3x2'"),
        (&["c11", "export", "--shape", "3x3", "--out", "/tmp/unused"][..], "'3x3'"),
        (&["c11", "campaign", "--programs", "0"][..], "'0'"),
    ] {
        let out = wbcheck(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: ") && first.contains(bad), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `audit`: a pass row's audit (0), its litmus tests written where asked; an unknown scenario or
/// revision, or a revision loom is expected to fail, is bad input (2).
#[test]
fn audit_exit_statuses() {
    let dir = std::env::temp_dir().join(format!("wbcheck-audit-{}", std::process::id()));
    let out = wbcheck(&[
        "audit",
        "bdev-slots",
        "--revision",
        "packed",
        "--tier",
        "quick",
        "--litmus-dir",
        dir.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("bdev-slots packed: 17 executions at preemption bound 0, 7 litmus tests\n"), "{text}");
    let written = std::fs::read_to_string(dir.join("audit+bdev-slots+packed+load-buffering+1.litmus")).unwrap();
    assert!(
        written.starts_with("C audit+bdev-slots+packed+load-buffering+1\n\n(*\n * Result: Sometimes\n"),
        "{written}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let out = wbcheck(&["audit", "percpu-counter", "--tier", "quick"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "percpu-counter kernel: 39 executions at preemption bound 0, nothing flagged\n"
    );
    assert_bad_input(&["audit", "nope"], "unknown scenario 'nope'", "dontcache-kick");
    assert_bad_input(&["audit", "bdev-slots", "--revision", "nope"], "unknown revision 'nope'", "packed");
    assert_bad_input(&["audit", "bdev-slots", "--revision", "v6"], "not expected to pass under loom", "bdev-slots v6");
}
