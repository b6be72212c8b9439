//! The parser: C litmus tests in the Linux kernel's dialect (tools/memory-model/litmus-tests),
//! read into a syntax tree ([`Test`]) that [`super::lower`] translates.
//!
//! A test is a `C NAME` line; `(* ... *)` comments before the initial state (a `Result:` line in
//! one is the test's prediction, as the kernel's `judgelitmus.sh` reads it); the initial state
//! `{ x=1; y=x; p=&x; int *r; 0:r0=1; }`; processes `P0(int *x, spinlock_t *l) { ... }` with
//! register declarations and C statements; and the final clause `exists`, `~exists` or `forall`
//! over `N:rK=V` and `x=V` terms. Anything else is an [`Error`] naming the construct and its line.

use crate::litmus::{Outcome, Prediction};
use std::fmt;

/// A parse or translation error: what was not understood, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

pub(crate) fn err<T>(line: usize, message: impl Into<String>) -> Result<T, Error> {
    Err(Error { line, message: message.into() })
}

/// One litmus test, as written.
#[derive(Debug, Clone)]
pub struct Test {
    pub name: String,
    /// The `Result:` line of the leading comment, if any.
    pub result: Option<Expected>,
    pub init: Vec<Init>,
    pub procs: Vec<Proc>,
    /// `locations [...]`: more variables to observe in the final states, as herd7 prints them.
    pub locations: Vec<Observed>,
    /// `filter P`: only the executions whose final state satisfies `P` count.
    pub filter: Option<Prop>,
    pub clause: Clause,
}

/// A variable of the final clause or of `locations`: `N:rK` (thread given) or `x`.
#[derive(Debug, Clone)]
pub struct Observed {
    pub line: usize,
    pub thread: Option<usize>,
    pub name: String,
}

/// A `Result:` line as the kernel's `judgelitmus.sh` reads it (the word after `Result:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// `Never`, `Sometimes` or `Always`, with `DATARACE` when a race is predicted.
    Outcome(Prediction),
    /// `DEADLOCK`: no execution completes (herd7's `Never 0 0`).
    Deadlock,
    /// `Maybe`: any outcome passes.
    Maybe,
    /// `Flag NAME`: herd7 raises the flag NAME (`srcu-bad-nesting`...), which only LKMM computes.
    Flag(String),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Outcome(p) => write!(f, "{p}"),
            Expected::Deadlock => f.write_str("DEADLOCK"),
            Expected::Maybe => f.write_str("Maybe"),
            Expected::Flag(name) => write!(f, "Flag {name}"),
        }
    }
}

/// An initial value: `x=1`, `p=&x` or `p=x` (a location), `0:r0=1` (a register); or a
/// declaration of a lock (`spinlock_t s;`) or an SRCU domain (`struct srcu_struct s;`).
#[derive(Debug, Clone)]
pub struct Init {
    pub line: usize,
    pub thread: Option<usize>,
    pub name: String,
    pub value: Value,
    pub kind: Kind,
}

/// A value of the initial state or the final clause: an integer, the address of a location, or
/// (in the final clause) another process's register, `N:rK`, compared as herd7 does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Loc(String),
    Reg(usize, String),
}

/// What a shared name is: a memory location, a lock or an SRCU domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Loc,
    /// `spinlock_t`.
    Lock,
    /// `struct srcu_struct`.
    Srcu,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub struct Proc {
    pub line: usize,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

#[derive(Debug, Clone)]
pub enum Stmt {
    /// `int r0;`, `int *r1 = x;`: a register.
    Decl {
        line: usize,
        name: String,
        init: Option<Expr>,
    },
    /// `r0 = e;` or `*e = e;`.
    Assign {
        line: usize,
        target: Target,
        value: Expr,
    },
    /// A call for its effect: `smp_mb();`, `atomic_inc(x);`.
    Call {
        line: usize,
        call: Call,
    },
    If {
        line: usize,
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
}

#[derive(Debug, Clone)]
pub enum Target {
    Reg(String),
    /// A plain store through a pointer.
    Deref(Expr),
}

#[derive(Debug, Clone)]
pub struct Call {
    pub line: usize,
    pub name: String,
    pub args: Vec<Expr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
}

#[derive(Debug, Clone)]
pub enum Expr {
    Int(i64),
    Name(String),
    /// `*e`: a plain load (or, as a primitive's argument, the location it names).
    Deref(Box<Expr>),
    /// `&x`.
    AddrOf(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Call(Call),
}

/// The final clause.
#[derive(Debug, Clone)]
pub struct Clause {
    pub line: usize,
    pub quantifier: Quantifier,
    pub prop: Prop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

#[derive(Debug, Clone)]
pub enum Prop {
    True,
    False,
    /// `N:rK=V` (thread given) or `x=V`.
    Eq {
        line: usize,
        thread: Option<usize>,
        name: String,
        value: Value,
    },
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Int(i64),
    Punct(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "'{s}'"),
            Tok::Int(n) => write!(f, "'{n}'"),
            Tok::Punct(p) => write!(f, "'{p}'"),
        }
    }
}

/// Longest first, so that `==` is not read as two `=`.
const PUNCTS: &[&str] = &[
    "/\\", "\\/", "==", "!=", "<=", ">=", "=>", "&&", "||", "(", ")", "{", "}", "[", "]", ";", ",", ":", "=", "*", "&",
    "+", "-", "!", "~", "<", ">", "|", "^",
];

/// The tokens of `src`, which starts at line `first_line`; `/* */` and `//` comments skipped,
/// and herd7's `(* *)` comments (nested) outside the processes' bodies: inside a body `(*p)` is C.
fn lex(src: &str, first_line: usize) -> Result<Vec<(Tok, usize)>, Error> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, first_line);
    // Brace depth, and how many blocks have opened at depth 0 (the first is the initial state).
    let (mut depth, mut blocks) = (0usize, 0usize);
    while i < bytes.len() {
        let c = bytes[i] as char;
        let rest = &src[i..];
        let in_body = depth > 0 && blocks > 1;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if rest.starts_with("(*") && !in_body {
            let end = herd_comment_end(rest).ok_or(Error { line, message: "unterminated (* comment".into() })?;
            line += rest[..end].matches('\n').count();
            i += end;
        } else if rest.starts_with("/*") {
            let end =
                rest.find("*/").map(|e| e + 2).ok_or(Error { line, message: "unterminated /* comment".into() })?;
            line += rest[..end].matches('\n').count();
            i += end;
        } else if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if c.is_ascii_digit() {
            let len = rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len());
            let text = &rest[..len];
            let n = match text.strip_prefix("0x") {
                Some(hex) => i64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            let n = n.map_err(|_| Error { line, message: format!("bad number '{text}'") })?;
            out.push((Tok::Int(n), line));
            i += len;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            out.push((Tok::Ident(rest[..len].to_string()), line));
            i += len;
        } else if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            match *p {
                "{" => {
                    blocks += usize::from(depth == 0);
                    depth += 1;
                }
                "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
            out.push((Tok::Punct(p), line));
            i += p.len();
        } else {
            let ch = rest.chars().next().expect("not at the end");
            return err(line, format!("unexpected character '{ch}'"));
        }
    }
    Ok(out)
}

/// The length of the `(* *)` comment `text` starts with, nested comments included.
fn herd_comment_end(text: &str) -> Option<usize> {
    let (mut depth, mut i) = (0usize, 0);
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with("(*") {
            depth += 1;
            i += 2;
        } else if rest.starts_with("*)") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Some(i);
            }
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    None
}

/// A binary operator and its precedence (C's, higher binds tighter).
fn binop(t: &Tok) -> Option<(BinOp, u8)> {
    let Tok::Punct(p) = t else { return None };
    Some(match *p {
        "||" => (BinOp::Or, 1),
        "&&" => (BinOp::And, 2),
        "|" => (BinOp::BitOr, 3),
        "^" => (BinOp::BitXor, 4),
        "&" => (BinOp::BitAnd, 5),
        "==" => (BinOp::Eq, 6),
        "!=" => (BinOp::Ne, 6),
        "<" => (BinOp::Lt, 7),
        "<=" => (BinOp::Le, 7),
        ">" => (BinOp::Gt, 7),
        ">=" => (BinOp::Ge, 7),
        "+" => (BinOp::Add, 8),
        "-" => (BinOp::Sub, 8),
        "*" => (BinOp::Mul, 9),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// The header: name and leading comments

/// Reads a test.
pub fn parse(text: &str) -> Result<Test, Error> {
    let first =
        text.lines().position(|l| !l.trim().is_empty()).ok_or(Error { line: 1, message: "empty file".into() })?;
    let header: Vec<&str> = text.lines().nth(first).unwrap_or("").split_whitespace().collect();
    let name = match header.as_slice() {
        ["C", name] => name.to_string(),
        [arch, ..] if *arch != "C" => {
            return err(
                first + 1,
                format!("a litmus test for '{arch}': only C litmus tests (a 'C NAME' line) are supported"),
            )
        }
        _ => return err(first + 1, "the first line must be 'C NAME'"),
    };
    // The text after the header line, and the line it starts on.
    let mut offset = text.lines().take(first + 1).map(|l| l.len() + 1).sum::<usize>().min(text.len());
    let mut line = first + 2;
    let mut result = None;
    loop {
        let rest = &text[offset..];
        let skipped = rest.len() - rest.trim_start().len();
        line += rest[..skipped].matches('\n').count();
        offset += skipped;
        let rest = &text[offset..];
        if !rest.starts_with("(*") {
            break;
        }
        let end = rest.find("*)").map(|e| e + 2).ok_or(Error { line, message: "unterminated (* comment".into() })?;
        let comment = &rest[..end];
        for (n, l) in comment.lines().enumerate() {
            if let Some(r) = l.split_once("Result:").map(|(_, r)| r) {
                if result.is_none() {
                    result = Some(expected(r.split("*)").next().unwrap_or(""), line + n)?);
                }
            }
        }
        line += comment.matches('\n').count();
        offset += end;
    }
    let tokens = lex(&text[offset..], line)?;
    let mut p = Parser { toks: tokens, pos: 0, end_line: text.lines().count() };
    let init = p.init()?;
    let mut procs = Vec::new();
    while let Some(Tok::Ident(id)) = p.peek() {
        let Some(n) = id.strip_prefix('P').and_then(|n| n.parse::<usize>().ok()) else { break };
        if n != procs.len() {
            return err(p.line(), format!("process P{n} where P{} was expected", procs.len()));
        }
        procs.push(p.proc()?);
    }
    if procs.is_empty() {
        return err(p.line(), format!("expected a process P0, found {}", p.describe()));
    }
    let (mut locations, mut filter) = (Vec::new(), None);
    loop {
        match p.peek() {
            Some(Tok::Ident(w)) if w == "locations" => {
                p.pos += 1;
                locations.extend(p.locations()?);
            }
            Some(Tok::Ident(w)) if w == "filter" && filter.is_none() => {
                p.pos += 1;
                filter = Some(p.prop()?);
            }
            _ => break,
        }
    }
    let clause = p.clause()?;
    if p.peek().is_some() {
        return err(p.line(), format!("unexpected {} after the final clause", p.describe()));
    }
    Ok(Test { name, result, init, procs, locations, filter, clause })
}

/// The rest of a `Result:` line, read as `judgelitmus.sh` reads it: its first word is the
/// outcome (`Never`, `Sometimes`, `Always`, `DEADLOCK`, `Maybe`, or `Flag NAME`), and `DATARACE`
/// anywhere after it predicts a data race; other words after it are comments.
fn expected(text: &str, line: usize) -> Result<Expected, Error> {
    let mut words = text.split_whitespace();
    let word = words.next().unwrap_or("");
    let data_race = text.split_whitespace().skip(1).any(|w| w == "DATARACE");
    Ok(match word {
        "DEADLOCK" => Expected::Deadlock,
        "Maybe" => Expected::Maybe,
        "Flag" => Expected::Flag(words.next().unwrap_or("").to_string()),
        _ => {
            let outcome = Outcome::from_name(word).ok_or(Error {
                line,
                message: format!("Result: '{word}' is not one of Never, Sometimes, Always, DEADLOCK, Maybe, Flag"),
            })?;
            Expected::Outcome(Prediction { outcome, data_race })
        }
    })
}

// ---------------------------------------------------------------------------------------------
// The body

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end_line: usize,
}

/// The types a declaration, a parameter or a cast may have (`int *`, `atomic_t *`, `spinlock_t *`,
/// `struct srcu_struct *`...), with their qualifiers.
const TYPES: &[&str] = &[
    "int",
    "long",
    "short",
    "char",
    "bool",
    "void",
    "unsigned",
    "signed",
    "const",
    "volatile",
    "atomic_t",
    "atomic_long_t",
    "spinlock_t",
    "intptr_t",
    "uintptr_t",
    "size_t",
    "u8",
    "u16",
    "u32",
    "u64",
    "s8",
    "s16",
    "s32",
    "s64",
    "struct",
];

/// Constructs of herd7's C dialect this parser knows but does not support, with what they are.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("while", "a loop ('while')"),
    ("for", "a loop ('for')"),
    ("do", "a loop ('do')"),
    ("goto", "'goto'"),
    ("return", "'return'"),
    ("switch", "'switch'"),
];

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|(t, _)| t)
    }

    fn line(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end_line, |(_, l)| *l)
    }

    fn describe(&self) -> String {
        self.peek().map_or("the end of the file".into(), |t| t.to_string())
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.peek().cloned();
        self.pos += 1;
        t
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn expect(&mut self, p: &str) -> Result<(), Error> {
        if self.eat(p) {
            Ok(())
        } else {
            self.unexpected(&format!("'{p}'"))
        }
    }

    /// An error at the current token: an unsupported construct by name, or what was expected.
    fn unexpected<T>(&self, expected: &str) -> Result<T, Error> {
        if let Some(Tok::Ident(id)) = self.peek() {
            if let Some((_, what)) = UNSUPPORTED.iter().find(|(w, _)| w == id) {
                return err(self.line(), format!("unsupported construct: {what}"));
            }
        }
        err(self.line(), format!("expected {expected}, found {}", self.describe()))
    }

    fn ident(&mut self) -> Result<String, Error> {
        match self.peek() {
            Some(Tok::Ident(id)) if !UNSUPPORTED.iter().any(|(w, _)| w == id) => {
                let id = id.clone();
                self.pos += 1;
                Ok(id)
            }
            _ => self.unexpected("a name"),
        }
    }

    fn is_type(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(id)) if TYPES.contains(&id.as_str()))
    }

    /// Skips a type (`int`, `unsigned long`, `spinlock_t`, `struct srcu_struct`) and the `*`s
    /// after it; returns what a name of that type is. A struct other than `srcu_struct` is an
    /// error: litmus tests give a struct's fields as locations of their own.
    fn skip_type(&mut self) -> Result<Kind, Error> {
        let mut kind = Kind::Loc;
        while self.is_type() {
            if self.peek() == Some(&Tok::Ident("spinlock_t".into())) {
                kind = Kind::Lock;
            }
            if self.peek() == Some(&Tok::Ident("struct".into())) {
                self.pos += 1;
                match self.peek() {
                    Some(Tok::Ident(s)) if s == "srcu_struct" => kind = Kind::Srcu,
                    Some(Tok::Ident(s)) => {
                        return err(
                            self.line(),
                            format!(
                                "unsupported construct: struct {s} (only struct srcu_struct; give fields as locations)"
                            ),
                        )
                    }
                    _ => return self.unexpected("a struct's name"),
                }
            }
            self.pos += 1;
        }
        while self.eat("*") {}
        Ok(kind)
    }

    fn int(&mut self) -> Result<i64, Error> {
        let neg = self.eat("-");
        match self.next() {
            Some(Tok::Int(n)) => Ok(if neg { -n } else { n }),
            _ => {
                self.pos -= 1;
                self.unexpected("an integer")
            }
        }
    }

    /// A value: an integer, `x`, `&x`, `ATOMIC_INIT(n)`.
    fn value(&mut self) -> Result<Value, Error> {
        if let Some(thread) = self.thread_prefix() {
            return Ok(Value::Reg(thread, self.ident()?));
        }
        if matches!(self.peek(), Some(Tok::Int(_))) || self.is("-") {
            return Ok(Value::Int(self.int()?));
        }
        self.eat("&");
        let name = self.ident()?;
        if name == "ATOMIC_INIT" {
            self.expect("(")?;
            let n = self.int()?;
            self.expect(")")?;
            return Ok(Value::Int(n));
        }
        Ok(Value::Loc(name))
    }

    /// `N:` before a register's name.
    fn thread_prefix(&mut self) -> Option<usize> {
        match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Int(n)), Some(Tok::Punct(":"))) => {
                let n = *n as usize;
                self.pos += 2;
                Some(n)
            }
            _ => None,
        }
    }

    fn init(&mut self) -> Result<Vec<Init>, Error> {
        self.expect("{")?;
        let mut out = Vec::new();
        while !self.eat("}") {
            if self.eat(";") {
                continue;
            }
            let line = self.line();
            let kind = self.skip_type()?;
            let thread = self.thread_prefix();
            let name = self.ident()?;
            let value = if self.eat("=") { self.value()? } else { Value::Int(0) };
            out.push(Init { line, thread, name, value, kind });
            if !self.is("}") {
                self.expect(";")?;
            }
        }
        Ok(out)
    }

    fn proc(&mut self) -> Result<Proc, Error> {
        let line = self.line();
        self.pos += 1; // Pn
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.eat(")") {
            if !params.is_empty() {
                self.expect(",")?;
            }
            if !self.is_type() {
                return self.unexpected("a parameter type (int *, atomic_t *, spinlock_t *, struct srcu_struct *)");
            }
            let kind = self.skip_type()?;
            params.push(Param { name: self.ident()?, kind });
        }
        let body = self.block()?;
        Ok(Proc { line, params, body })
    }

    fn block(&mut self) -> Result<Vec<Stmt>, Error> {
        self.expect("{")?;
        let mut out = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return self.unexpected("'}'");
            }
            self.stmt(&mut out)?;
        }
        Ok(out)
    }

    /// A block, or one statement standing for it (`if (c) stmt;`).
    fn body(&mut self) -> Result<Vec<Stmt>, Error> {
        if self.is("{") {
            return self.block();
        }
        let mut out = Vec::new();
        self.stmt(&mut out)?;
        Ok(out)
    }

    fn stmt(&mut self, out: &mut Vec<Stmt>) -> Result<(), Error> {
        let line = self.line();
        if self.eat(";") {
            return Ok(());
        }
        if self.is("{") {
            out.extend(self.block()?);
            return Ok(());
        }
        if self.is_type() {
            self.skip_type()?;
            loop {
                while self.eat("*") {}
                let name = self.ident()?;
                let init = if self.eat("=") { Some(self.expr()?) } else { None };
                out.push(Stmt::Decl { line, name, init });
                if !self.eat(",") {
                    break;
                }
            }
            return self.expect(";");
        }
        if self.peek() == Some(&Tok::Ident("if".into())) {
            self.pos += 1;
            self.expect("(")?;
            let cond = self.expr()?;
            self.expect(")")?;
            let then = self.body()?;
            let els = if self.peek() == Some(&Tok::Ident("else".into())) {
                self.pos += 1;
                self.body()?
            } else {
                Vec::new()
            };
            out.push(Stmt::If { line, cond, then, els });
            return Ok(());
        }
        if self.eat("*") {
            let addr = self.unary()?;
            self.expect("=")?;
            let value = self.expr()?;
            out.push(Stmt::Assign { line, target: Target::Deref(addr), value });
            return self.expect(";");
        }
        let name = self.ident()?;
        if self.eat("=") {
            let value = self.expr()?;
            out.push(Stmt::Assign { line, target: Target::Reg(name), value });
        } else if self.is("(") {
            let call = self.call(name, line)?;
            out.push(Stmt::Call { line, call });
        } else {
            return self.unexpected("'=' or '(' after a name");
        }
        self.expect(";")
    }

    fn call(&mut self, name: String, line: usize) -> Result<Call, Error> {
        self.expect("(")?;
        let mut args = Vec::new();
        while !self.eat(")") {
            if !args.is_empty() {
                self.expect(",")?;
            }
            args.push(self.expr()?);
        }
        Ok(Call { line, name, args })
    }

    /// Expressions by precedence climbing, C's precedences.
    fn expr(&mut self) -> Result<Expr, Error> {
        self.binary(0)
    }

    fn binary(&mut self, min: u8) -> Result<Expr, Error> {
        let mut lhs = self.unary()?;
        while let Some((op, precedence)) = self.peek().and_then(binop).filter(|(_, p)| *p >= min) {
            self.pos += 1;
            let rhs = self.binary(precedence + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, Error> {
        let line = self.line();
        if self.eat("!") {
            return Ok(Expr::Unary(UnOp::Not, Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Unary(UnOp::Neg, Box::new(self.unary()?)));
        }
        if self.eat("*") {
            return Ok(Expr::Deref(Box::new(self.unary()?)));
        }
        if self.eat("&") {
            return Ok(Expr::AddrOf(self.ident()?));
        }
        if self.eat("(") {
            if self.is_type() {
                // A cast: values are integers and addresses alike, so it changes nothing.
                if self.skip_type()? != Kind::Loc {
                    return err(line, "unsupported construct: a cast to a lock or srcu_struct");
                }
                self.expect(")")?;
                return self.unary();
            }
            let e = self.expr()?;
            self.expect(")")?;
            return Ok(e);
        }
        if let Some(Tok::Int(n)) = self.peek() {
            let n = *n;
            self.pos += 1;
            return Ok(Expr::Int(n));
        }
        let name = self.ident()?;
        if self.is("(") {
            return Ok(Expr::Call(self.call(name, line)?));
        }
        if self.is("[") || self.is(".") {
            return err(line, "unsupported construct: an array or a struct member");
        }
        Ok(Expr::Name(name))
    }

    fn clause(&mut self) -> Result<Clause, Error> {
        let line = self.line();
        let quantifier = if self.eat("~") { Quantifier::NotExists } else { Quantifier::Exists };
        match (quantifier, self.peek()) {
            (_, Some(Tok::Ident(w))) if w == "exists" => {}
            (Quantifier::Exists, Some(Tok::Ident(w))) if w == "forall" => {
                self.pos += 1;
                let prop = self.prop()?;
                return Ok(Clause { line, quantifier: Quantifier::Forall, prop });
            }
            _ => return self.unexpected("the final clause (exists, ~exists or forall)"),
        }
        self.pos += 1;
        let prop = self.prop()?;
        Ok(Clause { line, quantifier, prop })
    }

    /// `locations [0:r1; x; ...]`.
    fn locations(&mut self) -> Result<Vec<Observed>, Error> {
        self.expect("[")?;
        let mut out = Vec::new();
        while !self.eat("]") {
            if self.eat(";") {
                continue;
            }
            let line = self.line();
            let thread = self.thread_prefix();
            out.push(Observed { line, thread, name: self.ident()? });
        }
        Ok(out)
    }

    /// herd7's propositions: `=>` binds weakest (to the right), then `\/`, then `/\`; `~` and
    /// `not` bind tightest.
    fn prop(&mut self) -> Result<Prop, Error> {
        let lhs = self.disj()?;
        if self.eat("=>") {
            let rhs = self.prop()?;
            return Ok(Prop::Or(Box::new(Prop::Not(Box::new(lhs))), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn disj(&mut self) -> Result<Prop, Error> {
        let mut lhs = self.conj()?;
        while self.eat("\\/") {
            lhs = Prop::Or(Box::new(lhs), Box::new(self.conj()?));
        }
        Ok(lhs)
    }

    fn conj(&mut self) -> Result<Prop, Error> {
        let mut lhs = self.atom()?;
        while self.eat("/\\") {
            lhs = Prop::And(Box::new(lhs), Box::new(self.atom()?));
        }
        Ok(lhs)
    }

    fn atom(&mut self) -> Result<Prop, Error> {
        let line = self.line();
        if self.eat("~") {
            return Ok(Prop::Not(Box::new(self.atom()?)));
        }
        if self.peek() == Some(&Tok::Ident("not".into())) {
            self.pos += 1;
            return Ok(Prop::Not(Box::new(self.atom()?)));
        }
        if self.eat("(") {
            let p = self.prop()?;
            self.expect(")")?;
            return Ok(p);
        }
        let thread = self.thread_prefix();
        let name = self.ident()?;
        if thread.is_none() && (name == "true" || name == "false") {
            return Ok(if name == "true" { Prop::True } else { Prop::False });
        }
        let ne = self.eat("!=");
        if !ne && !self.eat("==") {
            self.expect("=")?;
        }
        let value = self.value()?;
        let eq = Prop::Eq { line, thread, name, value };
        Ok(if ne { Prop::Not(Box::new(eq)) } else { eq })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB: &str = "C SB\n(*\n * Result: Sometimes\n *)\n{\n\tx=0; y=0;\n}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\
        \tWRITE_ONCE(*x, 1);\n\tr0 = READ_ONCE(*y);\n}\n\nP1(int *x, int *y)\n{\n\tint r0;\n\tWRITE_ONCE(*y, 1);\n\
        \tr0 = READ_ONCE(*x);\n}\n\nexists (0:r0=0 /\\ 1:r0=0)\n";

    #[test]
    fn reads_store_buffering() {
        let t = parse(SB).unwrap();
        assert_eq!(t.name, "SB");
        assert_eq!(t.result, Some(Expected::Outcome(Prediction::SOMETIMES)));
        assert_eq!(t.init.len(), 2);
        assert_eq!(t.procs.len(), 2);
        assert_eq!(t.procs[1].params[1].name, "y");
        assert!(matches!(t.procs[0].body[1], Stmt::Call { line: 12, .. }));
        assert!(matches!(t.clause.prop, Prop::And(..)));
    }

    #[test]
    fn errors_name_the_construct_and_line() {
        let text = SB.replace("\tr0 = READ_ONCE(*y);", "\twhile (1) { }");
        assert_eq!(
            parse(&text).unwrap_err(),
            Error { line: 13, message: "unsupported construct: a loop ('while')".into() }
        );
        let text = SB.replace("\tint r0;\n\tWRITE", "\tstruct page *p;\n\tWRITE");
        assert_eq!(
            parse(&text).unwrap_err(),
            Error {
                line: 11,
                message: "unsupported construct: struct page (only struct srcu_struct; give fields as locations)"
                    .into()
            }
        );
        assert_eq!(parse("X86 SB\n{}").unwrap_err().line, 1);
        let text = SB.replace("Sometimes", "Perhaps");
        assert_eq!(
            parse(&text).unwrap_err(),
            Error {
                line: 3,
                message: "Result: 'Perhaps' is not one of Never, Sometimes, Always, DEADLOCK, Maybe, Flag".into()
            }
        );
    }

    #[test]
    fn reads_herd7_clauses_and_comments() {
        let text = SB.replace(
            "exists (0:r0=0 /\\ 1:r0=0)",
            "locations [x; 1:r0] (* debug (* nested *) aid *)\nfilter (x == 1)\n\
             exists not (0:r0!=0 \\/ 1:r0=1) => true (* bad *)",
        );
        let t = parse(&text).unwrap();
        assert_eq!(
            t.locations.iter().map(|o| (o.thread, o.name.as_str())).collect::<Vec<_>>(),
            [(None, "x"), (Some(1), "r0")]
        );
        assert!(matches!(t.filter, Some(Prop::Eq { .. })));
        assert!(matches!(t.clause.prop, Prop::Or(..)), "=> is an implication");
        // Inside a body, `(*p)` is C.
        let text = SB.replace("r0 = READ_ONCE(*y);", "r0 = (*y) + (int)(*y);");
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn reads_result_lines_as_judgelitmus_does() {
        for (line, want) in [
            ("Never DATARACE", Expected::Outcome(Prediction::NEVER.racy())),
            ("Sometimes (disabled)", Expected::Outcome(Prediction::SOMETIMES)),
            ("DEADLOCK", Expected::Deadlock),
            ("Maybe", Expected::Maybe),
            ("Flag srcu-bad-nesting", Expected::Flag("srcu-bad-nesting".into())),
        ] {
            assert_eq!(parse(&SB.replace("Result: Sometimes", &format!("Result: {line}"))).unwrap().result, Some(want));
        }
    }
}
