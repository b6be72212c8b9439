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
    pub result: Option<Prediction>,
    pub init: Vec<Init>,
    pub procs: Vec<Proc>,
    pub clause: Clause,
}

/// An initial value: `x=1`, `p=&x` or `p=x` (a location), `0:r0=1` (a register).
#[derive(Debug, Clone)]
pub struct Init {
    pub line: usize,
    pub thread: Option<usize>,
    pub name: String,
    pub value: Value,
}

/// A value of the initial state or the final clause: an integer or the address of a location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Loc(String),
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    /// `spinlock_t *`: a lock, not a memory location.
    pub lock: bool,
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
    "/\\", "\\/", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "{", "}", "[", "]", ";", ",", ":", "=", "*", "&", "+",
    "-", "!", "~", "<", ">", "|", "^",
];

/// The tokens of `src`, which starts at line `first_line`; `/* */` and `//` comments skipped.
fn lex(src: &str, first_line: usize) -> Result<Vec<(Tok, usize)>, Error> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, first_line);
    while i < bytes.len() {
        let c = bytes[i] as char;
        let rest = &src[i..];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
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
            out.push((Tok::Punct(p), line));
            i += p.len();
        } else {
            let ch = rest.chars().next().expect("not at the end");
            return err(line, format!("unexpected character '{ch}'"));
        }
    }
    Ok(out)
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
                result = Some(prediction(r.split("*)").next().unwrap_or(""), line + n)?);
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
    let clause = p.clause()?;
    if p.peek().is_some() {
        return err(p.line(), format!("unexpected {} after the final clause", p.describe()));
    }
    Ok(Test { name, result, init, procs, clause })
}

/// `Never|Sometimes|Always [DATARACE]`, the rest of a `Result:` line.
fn prediction(text: &str, line: usize) -> Result<Prediction, Error> {
    let mut words = text.split_whitespace();
    let word = words.next().unwrap_or("");
    let outcome = Outcome::from_name(word)
        .ok_or(Error { line, message: format!("Result: '{word}' is not one of Never, Sometimes, Always") })?;
    let data_race = match words.next() {
        None => false,
        Some("DATARACE") => true,
        Some(w) => return err(line, format!("Result: '{w}' after the outcome (only DATARACE may follow)")),
    };
    Ok(Prediction { outcome, data_race })
}

// ---------------------------------------------------------------------------------------------
// The body

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end_line: usize,
}

/// The types a declaration or a parameter may have (`int *`, `atomic_t *`, `spinlock_t *`...).
const TYPES: &[&str] =
    &["int", "long", "unsigned", "atomic_t", "atomic_long_t", "spinlock_t", "intptr_t", "u32", "u64"];

/// Constructs of herd7's C dialect this parser knows but does not support, with what they are.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("while", "a loop ('while')"),
    ("for", "a loop ('for')"),
    ("do", "a loop ('do')"),
    ("goto", "'goto'"),
    ("return", "'return'"),
    ("switch", "'switch'"),
    ("struct", "a struct type"),
    ("locations", "a 'locations' clause"),
    ("filter", "a 'filter' clause"),
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

    /// Skips a type (`int`, `unsigned long`, `spinlock_t`) and the `*`s after it; returns
    /// whether it was `spinlock_t`.
    fn skip_type(&mut self) -> bool {
        let mut lock = false;
        while self.is_type() {
            lock |= self.peek() == Some(&Tok::Ident("spinlock_t".into()));
            self.pos += 1;
        }
        while self.eat("*") {}
        lock
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
            self.skip_type();
            let thread = self.thread_prefix();
            let name = self.ident()?;
            let value = if self.eat("=") { self.value()? } else { Value::Int(0) };
            out.push(Init { line, thread, name, value });
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
                return self.unexpected("a parameter type (int *, atomic_t *, spinlock_t *)");
            }
            let lock = self.skip_type();
            params.push(Param { name: self.ident()?, lock });
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
            self.skip_type();
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
                return err(line, "unsupported construct: a cast");
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

    /// `\/` binds weaker than `/\`, `~` binds tightest.
    fn prop(&mut self) -> Result<Prop, Error> {
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
        if self.is("==") || self.is("!=") {
            return err(line, "unsupported construct: '==' or '!=' in the final clause (write x=V, ~x=V)");
        }
        self.expect("=")?;
        let value = self.value()?;
        Ok(Prop::Eq { line, thread, name, value })
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
        assert_eq!(t.result, Some(Prediction::SOMETIMES));
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
        let text = SB.replace("exists", "locations [x;]\nexists");
        assert_eq!(parse(&text).unwrap_err().message, "unsupported construct: a 'locations' clause");
        assert_eq!(parse("X86 SB\n{}").unwrap_err().line, 1);
        let text = SB.replace("Sometimes", "Perhaps");
        assert_eq!(
            parse(&text).unwrap_err(),
            Error { line: 3, message: "Result: 'Perhaps' is not one of Never, Sometimes, Always".into() }
        );
    }
}
