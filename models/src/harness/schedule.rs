//! The replay string of a shuttle counterexample: every scheduling decision and every random
//! draw of the execution, recorded by [`super::shuttle_run::Recording`] and fed back verbatim by
//! [`super::shuttle_run::Replaying`].
//!
//! Format (readable, versioned): `shuttle1:` then comma-separated tokens; `T*N` runs task `T`
//! for `N` consecutive decisions (`T` alone when `N` is 1); `rV` is a random draw of value `V`.
//! For example `shuttle1:0,1*4,r7,2*3`. shuttle's own replay regenerates random draws from a seed,
//! so it would not reproduce draws chosen by another scheduler; this format carries them.

use std::fmt::Write as _;

const PREFIX: &str = "shuttle1:";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Task(usize),
    Random(u64),
}

pub fn encode(choices: &[Choice]) -> String {
    let mut out = String::from(PREFIX);
    let mut i = 0;
    while i < choices.len() {
        if i > 0 {
            out.push(',');
        }
        match choices[i] {
            Choice::Random(v) => {
                let _ = write!(out, "r{v}");
                i += 1;
            }
            Choice::Task(t) => {
                let run = choices[i..].iter().take_while(|c| **c == Choice::Task(t)).count();
                if run == 1 {
                    let _ = write!(out, "{t}");
                } else {
                    let _ = write!(out, "{t}*{run}");
                }
                i += run;
            }
        }
    }
    out
}

pub fn decode(s: &str) -> Result<Vec<Choice>, String> {
    let body = s.trim().strip_prefix(PREFIX).ok_or_else(|| {
        format!("malformed replay string: expected it to start with '{PREFIX}' (a shuttle counterexample's \"replay\" field)")
    })?;
    let mut out = Vec::new();
    if body.is_empty() {
        return Ok(out);
    }
    for (i, tok) in body.split(',').enumerate() {
        let bad = || format!("malformed replay string: token {} '{tok}' is not T, T*N or rV", i + 1);
        if let Some(v) = tok.strip_prefix('r') {
            out.push(Choice::Random(v.parse().map_err(|_| bad())?));
        } else {
            let (t, n) = match tok.split_once('*') {
                Some((t, n)) => (t, n.parse::<usize>().map_err(|_| bad())?),
                None => (tok, 1),
            };
            let t: usize = t.parse().map_err(|_| bad())?;
            if n == 0 || n > 1_000_000 {
                return Err(bad());
            }
            out.extend(std::iter::repeat_n(Choice::Task(t), n));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let c = vec![Choice::Task(0), Choice::Task(1), Choice::Task(1), Choice::Random(u64::MAX), Choice::Task(2)];
        let s = encode(&c);
        assert_eq!(s, format!("shuttle1:0,1*2,r{},2", u64::MAX));
        assert_eq!(decode(&s).unwrap(), c);
        assert_eq!(decode("shuttle1:").unwrap(), vec![]);
    }

    #[test]
    fn malformed_strings_are_errors() {
        for bad in ["", "xyz", "shuttle1:a", "shuttle1:1*0", "shuttle1:r-1", "shuttle1:1,,2", "shuttle1:1*99999999999"]
        {
            assert!(decode(bad).is_err(), "{bad:?} accepted");
        }
    }
}
