//! The judge: compare herd7's verdicts with the exports' `Result:` lines, as the kernel's
//! tools/memory-model/scripts/judgelitmus.sh does. A test passes when herd7's `Observation`
//! outcome equals the predicted one and herd7 flags a data race exactly when the `Result:` line
//! says `DATARACE`; with a race flagged and predicted, a different outcome is forgiven (LKMM
//! gives a racy program no defined outcome).
//!
//! [`parse`] reads herd7's standard output (one or more tests, as `herd7 -conf
//! linux-kernel.cfg a.litmus b.litmus` prints them); [`run`] runs herd7 on every committed
//! export; [`judge`] compares.

use super::run::parse::Expected;
use super::{exports, Litmus, Outcome, Prediction};
use std::fmt;
use std::path::Path;

/// herd7's verdict on one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub name: String,
    pub outcome: Outcome,
    pub positive: u64,
    pub negative: u64,
    pub data_race: bool,
    /// The other flags herd7 raised (`srcu-bad-nesting`...).
    pub flags: Vec<String>,
}

/// Parses herd7's output: one [`Observation`] per `Observation NAME OUTCOME POS NEG` line, with
/// the `Flag data-race` lines of its test (those between its `Test` line and it).
pub fn parse(output: &str) -> Result<Vec<Observation>, String> {
    let mut found = Vec::new();
    let mut test: Option<String> = None;
    let mut race = false;
    let mut flags = Vec::new();
    for (n, line) in output.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Test", name, ..] => {
                test = Some(name.to_string());
                race = false;
                flags.clear();
            }
            ["Flag", "data-race"] => race = true,
            ["Flag", flag] => flags.push(flag.to_string()),
            ["Observation", name, outcome, pos, neg] => {
                let bad = |what: &str| format!("line {}: {what} in {line:?}", n + 1);
                let outcome = Outcome::from_name(outcome).ok_or_else(|| bad("unknown outcome"))?;
                let positive = pos.parse().map_err(|_| bad("bad positive count"))?;
                let negative = neg.parse().map_err(|_| bad("bad negative count"))?;
                if test.as_deref().is_some_and(|t| t != *name) {
                    return Err(bad("observation of another test than the last Test line"));
                }
                let flags = std::mem::take(&mut flags);
                found.push(Observation { name: name.to_string(), outcome, positive, negative, data_race: race, flags });
                test = None;
                race = false;
            }
            ["Observation", ..] => return Err(format!("line {}: malformed observation {line:?}", n + 1)),
            _ => {}
        }
    }
    Ok(found)
}

/// The judgement of one export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// herd7 agrees with the prediction.
    Agrees,
    /// Outcome differs, but a predicted data race was flagged: forgiven, as judgelitmus.sh does.
    Forgiven,
    /// herd7 disagrees: the message says how.
    Differs(String),
    /// herd7 gave no observation for the test (parse or run error, timeout).
    Missing(String),
}

#[derive(Debug)]
pub struct Judgement {
    pub name: String,
    /// Who observed: `herd7`, `herd7 (MODEL)`, or `loom` for `wbcheck litmus --run` ([`super::run`]).
    pub checker: String,
    pub predicted: Expected,
    pub observed: Option<Observation>,
    pub verdict: Verdict,
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seen = match &self.observed {
            Some(o) => format!(
                "{} {} {}{}",
                o.outcome.name(),
                o.positive,
                o.negative,
                if o.data_race { " (data race flagged)" } else { "" }
            ),
            None => "no observation".into(),
        };
        let (mark, note) = match &self.verdict {
            Verdict::Agrees => ("ok  ", String::new()),
            Verdict::Forgiven => ("ok  ", " (outcome forgiven: data race)".into()),
            Verdict::Differs(why) => ("FAIL", format!(": {why}")),
            Verdict::Missing(why) => ("FAIL", format!(": {why}")),
        };
        write!(f, "{mark} {}: predicted {}, {} {seen}{note}", self.name, self.predicted, self.checker)
    }
}

/// Compares one export's prediction with herd7's observation of it.
pub fn judge_one(predicted: Prediction, observed: &Observation) -> Verdict {
    if predicted.data_race && !observed.data_race {
        return Verdict::Differs("predicted data race not modeled".into());
    }
    if !predicted.data_race && observed.data_race {
        return Verdict::Differs("unexpected data race modeled".into());
    }
    if observed.outcome == predicted.outcome {
        Verdict::Agrees
    } else if observed.data_race {
        Verdict::Forgiven
    } else {
        Verdict::Differs(format!("non-{} verification", predicted.outcome.name()))
    }
}

/// Judges an observation against a `Result:` line of any kind, as `judgelitmus.sh` does: `Maybe`
/// passes, `DEADLOCK` wants no final state (`Never 0 0`), which is an unexpected deadlock for
/// any other outcome; `Flag NAME` wants herd7 to raise NAME (`None` for a checker that computes
/// no LKMM flags).
pub fn judge_expected(expected: &Expected, observed: &Observation, computes_flags: bool) -> Option<Verdict> {
    let deadlock = observed.positive + observed.negative == 0;
    Some(match expected {
        Expected::Maybe => Verdict::Agrees,
        Expected::Deadlock if deadlock => Verdict::Agrees,
        Expected::Deadlock => Verdict::Differs("non-DEADLOCK verification".into()),
        Expected::Flag(_) if !computes_flags => return None,
        Expected::Flag(flag) if observed.flags.contains(flag) => Verdict::Agrees,
        Expected::Flag(flag) => Verdict::Differs(format!("flag {flag} not raised")),
        Expected::Outcome(p) if deadlock => Verdict::Differs(format!("unexpected non-{} deadlock", p.outcome.name())),
        Expected::Outcome(p) => judge_one(*p, observed),
    })
}

/// Judges every export named in `observations` (herd7's output for some or all of them).
/// Observations of tests that are not exports are errors; exports with no observation are
/// skipped, so a log of a few tests judges those.
pub fn judge(observations: &[Observation]) -> Result<Vec<Judgement>, String> {
    let all = exports();
    observations
        .iter()
        .map(|o| {
            let l = all
                .iter()
                .find(|l| l.name() == o.name)
                .ok_or_else(|| format!("herd7 output names '{}', which is not a wbcheck export", o.name))?;
            Ok(Judgement {
                name: o.name.clone(),
                checker: "herd7".into(),
                predicted: Expected::Outcome(l.prediction),
                observed: Some(o.clone()),
                verdict: judge_one(l.prediction, o),
            })
        })
        .collect()
}

/// Runs `herd7 -conf linux-kernel.cfg` from the tools/memory-model directory `model` on every
/// export's committed file in `litmus_dir`, and judges each.
pub fn run(herd7: &Path, model: &Path, litmus_dir: &Path) -> Result<Vec<Judgement>, String> {
    if !model.join("linux-kernel.cfg").is_file() {
        return Err(format!(
            "{} has no linux-kernel.cfg: pass the kernel's tools/memory-model directory",
            model.display()
        ));
    }
    let mut out = Vec::new();
    for l in exports() {
        out.push(run_one(herd7, model, litmus_dir, &l)?);
    }
    Ok(out)
}

fn run_one(herd7: &Path, model: &Path, litmus_dir: &Path, l: &Litmus) -> Result<Judgement, String> {
    let file = litmus_dir.join(l.file_name());
    let file = std::path::absolute(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    if !file.is_file() {
        return Err(format!("{} is missing: regenerate the exports", file.display()));
    }
    let args = ["-conf".into(), "linux-kernel.cfg".into(), file.into_os_string()];
    let (observed, verdict) = match super::herd7::run(herd7, model, &args) {
        Ok(o) if o.name != l.name() => return Err(format!("herd7 observed '{}' in {}", o.name, l.file_name())),
        Ok(o) => {
            let verdict = judge_one(l.prediction, &o);
            (Some(o), verdict)
        }
        Err(why) => (None, Verdict::Missing(why)),
    };
    Ok(Judgement {
        name: l.name(),
        checker: "herd7".into(),
        predicted: Expected::Outcome(l.prediction),
        observed,
        verdict,
    })
}

/// Whether every judgement passed.
pub fn all_agree(judgements: &[Judgement]) -> bool {
    judgements.iter().all(|j| matches!(j.verdict, Verdict::Agrees | Verdict::Forgiven))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOMETIMES: &str = include_str!("../../litmus/herd7-output/dontcache-kick+v7-posted-no-mb.out");
    const NEVER: &str = include_str!("../../litmus/herd7-output/dontcache-kick+v7.written.out");
    const RACE: &str = include_str!("../../litmus/herd7-output/percpu-counter+unlocked-fold.written.out");

    #[test]
    fn parses_herd7_7_58_output() {
        let got = parse(SOMETIMES).unwrap();
        assert_eq!(
            got,
            [Observation {
                name: "dontcache-kick+v7-posted-no-mb".into(),
                outcome: Outcome::Sometimes,
                positive: 1,
                negative: 3,
                data_race: false,
                flags: Vec::new(),
            }]
        );
        let judged = judge(&got).unwrap();
        assert_eq!(judged[0].verdict, Verdict::Agrees, "{}", judged[0]);
    }

    #[test]
    fn parses_a_never_and_a_flagged_race() {
        let never = parse(NEVER).unwrap();
        assert_eq!((never[0].outcome, never[0].positive, never[0].negative), (Outcome::Never, 0, 3));
        let race = parse(RACE).unwrap();
        assert!(race[0].data_race && race[0].outcome == Outcome::Sometimes);
        let both = parse(&format!("{NEVER}{RACE}")).unwrap();
        assert_eq!(both.len(), 2);
        assert!(!both[0].data_race, "a flag belongs to its own test only");
        assert!(all_agree(&judge(&both).unwrap()));
    }

    #[test]
    fn disagreements_are_reported() {
        let mut o = parse(NEVER).unwrap().remove(0);
        o.outcome = Outcome::Sometimes;
        assert!(matches!(judge(&[o.clone()]).unwrap()[0].verdict, Verdict::Differs(_)));
        o.data_race = true;
        assert_eq!(judge(&[o.clone()]).unwrap()[0].verdict, Verdict::Differs("unexpected data race modeled".into()));
        let mut r = parse(RACE).unwrap().remove(0);
        r.outcome = Outcome::Never;
        assert_eq!(judge(&[r.clone()]).unwrap()[0].verdict, Verdict::Forgiven);
        r.data_race = false;
        assert_eq!(judge(&[r]).unwrap()[0].verdict, Verdict::Differs("predicted data race not modeled".into()));
        o.name = "not-an-export".into();
        assert!(judge(&[o]).unwrap_err().contains("not-an-export"));
    }

    /// herd7's other flags belong to their test; `judge_expected` reads every kind of Result line.
    #[test]
    fn flags_and_result_kinds() {
        let out = "Test a Allowed\nFlag srcu-bad-nesting\nObservation a Sometimes 1 3\nTest b Allowed\nObservation b Never 0 0\n";
        let got = parse(out).unwrap();
        assert_eq!(
            (got[0].flags.as_slice(), got[1].flags.is_empty()),
            (["srcu-bad-nesting".to_string()].as_slice(), true)
        );
        let flag = Expected::Flag("srcu-bad-nesting".into());
        assert_eq!(judge_expected(&flag, &got[0], true), Some(Verdict::Agrees));
        assert!(matches!(judge_expected(&flag, &got[1], true), Some(Verdict::Differs(_))));
        assert_eq!(judge_expected(&flag, &got[0], false), None, "loom computes no LKMM flag");
        assert_eq!(judge_expected(&Expected::Deadlock, &got[1], false), Some(Verdict::Agrees));
        assert!(matches!(judge_expected(&Expected::Deadlock, &got[0], false), Some(Verdict::Differs(_))));
        assert!(matches!(
            judge_expected(&Expected::Outcome(Prediction::NEVER), &got[1], false),
            Some(Verdict::Differs(why)) if why.contains("deadlock")
        ));
        assert_eq!(judge_expected(&Expected::Maybe, &got[0], false), Some(Verdict::Agrees));
    }

    #[test]
    fn malformed_output_is_an_error() {
        assert!(parse("Observation x Perhaps 1 2").unwrap_err().contains("unknown outcome"));
        assert!(parse("Observation x Never one 2").unwrap_err().contains("positive"));
        assert!(parse("Observation x Never").unwrap_err().contains("malformed"));
        assert!(parse("Test a Allowed\nObservation b Never 0 1").unwrap_err().contains("another test"));
        assert_eq!(parse("no herd7 here").unwrap(), []);
    }
}
