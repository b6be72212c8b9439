//! Export of a [`Program`] as a C11 litmus test in herd7's C syntax, so that herd7's `rc11.cat`
//! can judge the program independently of loom, and a syntax check of that export written from
//! herdtools7's grammar ([`check_syntax`]).
//!
//! # The export
//!
//! For the message-passing program `T0: x.store(1, rel); y.store(1, rel)` /
//! `T1: y.load(acq); x.load(rlx)` ([`litmus`] writes; the golden test holds the whole text):
//!
//! ```text
//! C MP
//! (*
//! T0: x.store(1, rel); y.store(1, rel)
//! T1: y.load(acq); x.load(rlx)
//! loom reached 3 final states:
//! 1:r0=0; 1:r1=0; [x]=1; [y]=1;
//! ...
//! *)
//!
//! { x = 0; y = 0; }
//!
//! P0 (atomic_int* x, atomic_int* y) {
//!   atomic_store_explicit(x, 1, memory_order_release);
//!   ...
//! }
//! ...
//! locations [x; y; 1:r0; 1:r1;]
//! exists (1:r0=0 /\ 1:r1=0 /\ [x]=1 /\ [y]=1)
//! ```
//!
//! * Every thread `T<i>` is a `P<i>` taking every location of the program as an `atomic_int*`;
//!   its `k`-th value-returning operation declares `int r<k>`, so herd's registers are the
//!   program's (`1:r0` is T1's first register).
//! * The `n`-th compare-exchange of the program (counting thread by thread in program order),
//!   `x.cas(e, v, s, f)`, gets a plain `int` location `e<n>`, initialised to the expected value
//!   `e` in the init block and passed as an extra `int* e<n>` parameter:
//!   `int ok<n> = atomic_compare_exchange_strong_explicit(x, e<n>, v, s, f);` then
//!   `int r<k> = *e<n>;`. herd's semantics (herd/CSem.ml, `ECas`) reads `*e<n>` non-atomically,
//!   and on failure writes the value it read from `x` into `*e<n>`; on success it is an RMW from
//!   the value of `*e<n>` and leaves `*e<n>` alone: either way `*e<n>` ends up holding the value
//!   read, which is what the program's register holds. Only the thread itself touches `e<n>`,
//!   so the plain accesses race with nothing (`rc11.cat`'s `dr`). The boolean `ok<n>` is not in
//!   `locations`, so herd does not print it.
//! * The final condition is `exists` of the first reached outcome (in [`Outcome`]'s order),
//!   every register and location of it, or `exists (true)` when `reached` is empty. It is
//!   harmless: herd prints every final state the model allows whatever the condition is, and
//!   the condition only adds a one-line check that herd also allows that outcome (`Ok`,
//!   `Positive: n` with `n > 0`). A `forall` of the disjunction of every reached outcome would
//!   test inclusion in one word but doubles the text with every outcome; the state lists are
//!   compared anyway.
//!
//! # What herd prints, and comparing it with the comment
//!
//! herd prints the final states of the allowed executions one a line between `States N` and
//! `Ok`/`No`, in the format of [`Outcome`]'s `Display`: registers first, by thread then name,
//! then memory locations by name, each `loc=value;` separated by one space (lib/location.ml,
//! `location_compare`: registers before globals). Only the locations named in `locations` or in
//! the condition are printed (herd/tests/instructions/C/C11.litmus.expected prints only the
//! condition's registers), hence the `locations` clause naming every location and register.
//!
//! Current herd prints a memory location of a C test with brackets, `[y]=1;`, whether the
//! test wrote `y=1` or `[y]=1` (herd/tests/instructions/C/C03.litmus writes `forall y=1` and
//! its `.expected` prints `[y]=0x1;`; C15 `1:r1=0x0; [y]=0x1;`; C16 `[y]=0x1; [z]=0x0;`). An
//! older version of C02.litmus.expected has `0:r0=0x0; y=0x1;`: older herd printed no brackets.
//! Those files are produced with `hexa true` (herd/tests/instructions/C/c.cfg); without `-hexa`
//! herd prints decimal (herd.ml: `-hexa` "print numbers in hexadecimal"), as the comment lines
//! are. So with a current herd run without `-hexa`, every state line herd prints is a line of
//! the comment written exactly the same way, and comparing the two lists is a set comparison
//! of lines.
//!
//! # herd syntax facts this relies on (herdtools7 files)
//!
//! * lib/splitter.mll, `main`: the first line is `<arch> <testname>`; `testname` is made of
//!   letters, digits and `_ / . - + [ ]`.
//! * lib/splitter.mll, `find_init`: between the first line and the init block, `(* ... *)`
//!   comments are skipped (lib/lexUtils.mll `skip_comment`, which nests). ocamllex takes the
//!   longest match, and `find_init` also has a rule for any run of characters other than
//!   newline and `{`: a `(*` followed by more text on its line is read as that run, not as a
//!   comment opener. The export therefore puts `(*` and `*)` on lines of their own; the text
//!   between them never contains `(*`, `*)` or `{`.
//! * lib/splitter.mll, `inside_init`: the init section is the text up to the first `}`; it is
//!   parsed by lib/stateParser.mly `init` (`init_semi_list`, `atom_init`): `x = 0;` as in
//!   herd/tests/instructions/C/C13.litmus.
//! * lib/splitter.mll, `inside_prog`: the code ends at the first word `locations`, `exists`,
//!   `forall`, `~exists`, `final`, `filter`, `cases` or `observed`; for C, `(*` is not a comment
//!   there ("(*" is legal C), only C's `/* */` and `//` (lib/CLexer.mll).
//! * lib/CLexer.mll: `P<n>` is a process, `atomic_int` a type, and `atomic_load_explicit`,
//!   `atomic_store_explicit`, `atomic_exchange_explicit`, `atomic_fetch_add_explicit`,
//!   `atomic_compare_exchange_strong_explicit`, `atomic_thread_fence` and the six
//!   `memory_order_*` names are tokens of their own; any other word is an identifier.
//! * lib/CParser.mly: `function_def` is `P<n> ( parameter_list ) { pseudo_seq }`, a parameter
//!   `typ * name`; statements `typ name = expr ;` (`initialisation`), `name = expr ;`,
//!   `atomic_store_explicit(e, e, mo);` and `atomic_thread_fence(mo);`; expressions
//!   `atomic_load_explicit(e, mo)`, `atomic_exchange_explicit(e, e, mo)`,
//!   `atomic_fetch_add_explicit(e, e, mo)`,
//!   `atomic_compare_exchange_strong_explicit(e, e, e, mo, mo)` and `*name`. Older versions of
//!   the parser have no statement made of a bare expression (later ones do, `expr_only`), so
//!   the export gives every call's value to an `int`.
//! * lib/stateParser.mly `constraints`: `locations [ loc; loc; ]` (`loc_semi_list`, a trailing
//!   `;` allowed, as herd/tests/instructions/C/C13.litmus `locations [0:r2; 1:r4;]`) comes
//!   before the condition; `exists prop`, `forall prop`, `~exists prop`; `prop` with `/\`, `\/`,
//!   `~`, parentheses and atoms `0:r0=1`, `[x]=1` or `x=1` (lib/stateLexer.mll tokens).
//! * Mutexes: lib/CLexer.mll reads `lock`/`mtx_lock`, but herd/CSem.ml makes a C11 lock
//!   "always successful, oversimplification?" and herd/libdir/rc11.cat has no rule for lock
//!   events, so a program with a mutex is refused rather than exported to a model that would
//!   not judge it.
//!
//! What only running herd7 settles: that this herd version prints `[x]=1;` (not `x=1;`); that
//! a `P<i>` whose body is a lone declaration (a thread without operations) is accepted; that
//! the untyped `e<n> = v` init with an `int*` parameter makes `e<n>` a plain `int`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::program::{loc_name, Op, Outcome, Program};

/// The program as a C11 litmus test named `name` in herd7's syntax, with the program's text and
/// the final states loom `reached` in its leading comment (see the module documentation).
///
/// Refuses a program with a mutex operation, an invalid program, a name herd's first line does
/// not accept, and an outcome whose shape is not the program's (it could not be compared with
/// herd's states).
pub fn litmus(name: &str, p: &Program, reached: &BTreeSet<Outcome>) -> Result<String, String> {
    p.validate().map_err(|e| format!("invalid program: {e}"))?;
    if p.has_mutex() {
        return Err("the program has a mutex operation (lock/unlock): herd's C11 model (rc11.cat) \
                    has no mutex, so it cannot be exported"
            .into());
    }
    check_test_name(name)?;
    let text = p.to_string();
    if text.contains("(*") || text.contains("*)") || text.contains('{') {
        return Err("the program's text would end the litmus comment early".into());
    }
    let regs = p.registers();
    for o in reached {
        let shape: Vec<usize> = o.regs.iter().map(Vec::len).collect();
        if shape != regs || o.locs.len() != p.locs as usize {
            return Err(format!("outcome `{o}` does not have the program's registers and locations"));
        }
    }

    let locs: Vec<&str> = (0..p.locs).map(loc_name).collect();
    let mut out = String::new();
    // Header and comment (lib/splitter.mll `main`, `find_init`).
    let _ = writeln!(out, "C {name}");
    out.push_str("(*\n");
    out.push_str(&text);
    let _ = writeln!(out, "loom reached {} final states:", reached.len());
    for o in reached {
        let _ = writeln!(out, "{o}");
    }
    out.push_str("*)\n\n");

    // Per-thread C bodies; the compare-exchange locations are numbered across the program.
    let mut cas_inits: Vec<(usize, u64)> = Vec::new();
    let mut procs = String::new();
    for (t, ops) in p.threads.iter().enumerate() {
        let mut body = String::new();
        let mut own_cas = Vec::new();
        let mut reg = 0usize;
        let mut next_reg = || {
            reg += 1;
            reg - 1
        };
        for op in ops {
            match *op {
                Op::Load { loc, mo } => {
                    let r = next_reg();
                    let _ = writeln!(body, "  int r{r} = atomic_load_explicit({}, {});", loc_name(loc), mo.herd());
                }
                Op::Store { loc, val, mo } => {
                    let _ = writeln!(body, "  atomic_store_explicit({}, {val}, {});", loc_name(loc), mo.herd());
                }
                Op::Swap { loc, val, mo } => {
                    let r = next_reg();
                    let x = loc_name(loc);
                    let _ = writeln!(body, "  int r{r} = atomic_exchange_explicit({x}, {val}, {});", mo.herd());
                }
                Op::FetchAdd { loc, val, mo } => {
                    let r = next_reg();
                    let x = loc_name(loc);
                    let _ = writeln!(body, "  int r{r} = atomic_fetch_add_explicit({x}, {val}, {});", mo.herd());
                }
                Op::Cas { loc, expected, new, success, failure } => {
                    let r = next_reg();
                    let n = cas_inits.len();
                    cas_inits.push((n, expected));
                    own_cas.push(n);
                    let _ = writeln!(
                        body,
                        "  int ok{n} = atomic_compare_exchange_strong_explicit({}, e{n}, {new}, {}, {});",
                        loc_name(loc),
                        success.herd(),
                        failure.herd()
                    );
                    let _ = writeln!(body, "  int r{r} = *e{n};");
                }
                Op::Fence { mo } => {
                    let _ = writeln!(body, "  atomic_thread_fence({});", mo.herd());
                }
                Op::Lock { .. } | Op::Unlock { .. } => unreachable!("refused above"),
            }
        }
        if ops.is_empty() {
            // CParser.mly `pseudo_seq` needs one statement or declaration; a declaration does
            // nothing.
            body.push_str("  int unused;\n");
        }
        let mut params: Vec<String> = locs.iter().map(|x| format!("atomic_int* {x}")).collect();
        params.extend(own_cas.iter().map(|n| format!("int* e{n}")));
        let _ = write!(procs, "\nP{t} ({}) {{\n{body}}}\n", params.join(", "));
    }

    // Init block (lib/stateParser.mly `init`): every location 0, every expected value.
    out.push('{');
    for x in &locs {
        let _ = write!(out, " {x} = 0;");
    }
    for (n, v) in &cas_inits {
        let _ = write!(out, " e{n} = {v};");
    }
    out.push_str(" }\n");
    out.push_str(&procs);

    // Constraints (lib/stateParser.mly `constraints`).
    let mut observed: Vec<String> = locs.iter().map(|x| x.to_string()).collect();
    for (t, &n) in regs.iter().enumerate() {
        observed.extend((0..n).map(|r| format!("{t}:r{r}")));
    }
    let observed: Vec<String> = observed.iter().map(|l| format!("{l};")).collect();
    let _ = writeln!(out, "\nlocations [{}]", observed.join(" "));
    let cond = match reached.first() {
        Some(o) => condition_atoms(o).join(" /\\ "),
        None => "true".to_string(),
    };
    let _ = writeln!(out, "exists ({cond})");
    Ok(out)
}

/// The atoms of `o` as herd writes them in a condition: `1:r0=0`, `[x]=1`.
fn condition_atoms(o: &Outcome) -> Vec<String> {
    let mut atoms = Vec::new();
    for (t, regs) in o.regs.iter().enumerate() {
        atoms.extend(regs.iter().enumerate().map(|(r, v)| format!("{t}:r{r}={v}")));
    }
    atoms.extend(o.locs.iter().enumerate().map(|(l, v)| format!("[{}]={v}", loc_name(l as u8))));
    atoms
}

/// lib/splitter.mll `testname`: letters, digits and `_ / . - + [ ]`.
fn is_testname_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_/.-+[]".contains(c)
}

fn check_test_name(name: &str) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(is_testname_char) {
        return Err(format!("`{name}` is not a herd test name: one or more letters, digits and `_ / . - + [ ]`"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The syntax check.

/// The memory orders of lib/CLexer.mll.
const MEMORY_ORDERS: [&str; 6] = [
    "memory_order_relaxed",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
    "memory_order_consume",
];

/// Whether herd7's C lexer reserves `word` (it cannot name a parameter or a register).
pub fn is_c_reserved(word: &str) -> bool {
    C_RESERVED.contains(&word)
}

/// Words lib/CLexer.mll's `tr_name` turns into tokens of their own (so they are no identifier).
const C_RESERVED: &[&str] = &[
    "volatile",
    "_Atomic",
    "char",
    "int",
    "long",
    "struct",
    "void",
    "atomic_int",
    "mtx_t",
    "spinlock_t",
    "atomic_t",
    "atomic_fetch_add_explicit",
    "atomic_fetch_sub_explicit",
    "atomic_fetch_or_explicit",
    "atomic_fetch_xor_explicit",
    "atomic_fetch_and_explicit",
    "atomic_thread_fence",
    "atomic_load_explicit",
    "atomic_store_explicit",
    "atomic_exchange_explicit",
    "lock",
    "mtx_lock",
    "unlock",
    "mtx_unlock",
    "WCAS",
    "SCAS",
    "atomic_compare_exchange_weak",
    "atomic_compare_exchange_strong",
    "atomic_compare_exchange_weak_explicit",
    "atomic_compare_exchange_strong_explicit",
    "if",
    "else",
    "while",
];

/// The words that end the code section (lib/splitter.mll `inside_prog`).
const CONSTRAINT_WORDS: [&str; 7] = ["locations", "exists", "forall", "final", "filter", "cases", "observed"];

/// Keywords of lib/stateLexer.mll (so they are no location or value name).
const STATE_KEYWORDS: &[&str] = &[
    "not",
    "true",
    "false",
    "observed",
    "Observed",
    "and",
    "exists",
    "forall",
    "cases",
    "final",
    "with",
    "locations",
    "filter",
    "_Atomic",
    "ATOMIC_INIT",
];

/// A token of either lexer, with its line.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A word: identifier or keyword, told apart by the parser.
    Word(String),
    Num(String),
    Sym(&'static str),
    /// What the lexer could not read (its message): the parser reports it when it gets there,
    /// unless it finds an error before.
    Bad(String),
    Eof,
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "`{w}`"),
            Tok::Num(n) => write!(f, "`{n}`"),
            Tok::Sym(s) => write!(f, "`{s}`"),
            Tok::Bad(why) => f.write_str(why),
            Tok::Eof => f.write_str("the end of the section"),
        }
    }
}

/// Characters of `src[from..to]` with line numbers, lexed in the C mode (lib/CLexer.mll) or the
/// state mode (lib/stateLexer.mll).
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    end: usize,
    line: usize,
}

const C_SYMS: [&str; 21] =
    ["==", "!=", "<=", ">=", ";", ",", "|", "*", "/", "+", "-", "^", "&", "(", ")", "{", "}", "=", "<", ">", "~"];
const STATE_SYMS: [&str; 17] =
    ["/\\", "\\/", "=>", "==", "!=", "<>", "&", ";", ":", "[", "]", "(", ")", "=", "+", "~", "*"];

impl<'a> Lexer<'a> {
    fn new(s: &'a str, pos: usize, end: usize, line: usize) -> Self {
        Lexer { s: s.as_bytes(), pos, end, line }
    }

    fn peek_byte(&self, k: usize) -> Option<u8> {
        (self.pos + k < self.end).then(|| self.s[self.pos + k])
    }

    fn digit_at(&self, k: usize) -> bool {
        self.peek_byte(k).is_some_and(|c| c.is_ascii_digit())
    }

    fn starts(&self, lit: &str) -> bool {
        self.s[self.pos..self.end].starts_with(lit.as_bytes())
    }

    fn bump(&mut self, n: usize) {
        for _ in 0..n {
            if self.s[self.pos] == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
    }

    /// Skip an OCaml comment whose `(*` is at `pos` (lib/lexUtils.mll `skip_comment`: nests).
    fn skip_ocaml_comment(&mut self) -> Result<(), String> {
        let open = self.line;
        let mut depth = 0usize;
        loop {
            if self.pos >= self.end {
                return Err(format!("a comment `(*` of line {open} never closed by `*)`"));
            }
            if self.starts("(*") {
                depth += 1;
                self.bump(2);
            } else if self.starts("*)") {
                depth -= 1;
                self.bump(2);
                if depth == 0 {
                    return Ok(());
                }
            } else {
                self.bump(1);
            }
        }
    }

    /// Skip blanks and the mode's comments.
    fn skip_blank(&mut self, c_mode: bool) -> Result<(), String> {
        while let Some(b) = self.peek_byte(0) {
            if b == b' ' || b == b'\t' || b == b'\r' || b == b'\n' {
                self.bump(1);
            } else if c_mode && self.starts("/*") {
                let open = self.line;
                match self.s[self.pos + 2..self.end].windows(2).position(|w| w == b"*/") {
                    Some(k) => self.bump(k + 4),
                    None => return Err(format!("a comment `/*` of line {open} never closed")),
                }
            } else if c_mode && self.starts("//") {
                while self.peek_byte(0).is_some_and(|b| b != b'\n') {
                    self.bump(1);
                }
            } else if !c_mode && self.starts("(*") {
                self.skip_ocaml_comment()?;
            } else {
                break;
            }
        }
        Ok(())
    }

    /// The next token and its line.
    fn next(&mut self, c_mode: bool) -> Result<(Tok, usize), String> {
        self.skip_blank(c_mode)?;
        let line = self.line;
        let Some(b) = self.peek_byte(0) else { return Ok((Tok::Eof, line)) };
        let start = self.pos;
        let text = |lx: &Self| String::from_utf8_lossy(&lx.s[start..lx.pos]).into_owned();
        // Numbers: `'-'? digit+`, and hexadecimal in the state lexer.
        if !c_mode && (self.starts("0x") || self.starts("0X")) {
            self.bump(2);
            while self.peek_byte(0).is_some_and(|c| c.is_ascii_hexdigit()) {
                self.bump(1);
            }
            return Ok((Tok::Num(text(self)), line));
        }
        if b.is_ascii_digit() || (b == b'-' && self.digit_at(1)) {
            self.bump(1);
            while self.digit_at(0) {
                self.bump(1);
            }
            return Ok((Tok::Num(text(self)), line));
        }
        // Words: C `(alpha|'_') (alpha|digit|'_')*`; state `alpha (alpha|digit|'_'|'/'|'.'|'-')*`.
        let word_start = if c_mode { b.is_ascii_alphabetic() || b == b'_' } else { b.is_ascii_alphabetic() };
        if word_start {
            self.bump(1);
            while let Some(c) = self.peek_byte(0) {
                let more = c.is_ascii_alphanumeric() || c == b'_' || (!c_mode && (c == b'/' || c == b'.' || c == b'-'));
                if !more {
                    break;
                }
                self.bump(1);
            }
            return Ok((Tok::Word(text(self)), line));
        }
        let syms: &[&'static str] = if c_mode { &C_SYMS } else { &STATE_SYMS };
        if let Some(s) = syms.iter().find(|s| self.starts(s)) {
            self.bump(s.len());
            return Ok((Tok::Sym(s), line));
        }
        let c = String::from_utf8_lossy(&self.s[self.pos..self.end]).chars().next().unwrap_or('?');
        Err(format!("an unexpected character `{c}` (line {line})"))
    }
}

/// A token stream with the parser's helpers.
struct Parser {
    toks: Vec<(Tok, usize)>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].0
    }

    fn line(&self) -> usize {
        self.toks[self.i].1
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("line {}: expected {what}, found {}", self.line(), self.peek()))
    }

    fn eat(&mut self, s: &str) -> bool {
        if matches!(self.peek(), Tok::Sym(t) if *t == s) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) {
            Ok(())
        } else {
            self.err(&format!("`{s}`"))
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(t) if t == w)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.next();
            true
        } else {
            false
        }
    }
}

/// Lex `src[from..to]` (starting on `line`) into a token stream ending with [`Tok::Eof`], or
/// with [`Tok::Bad`] where the lexer fails.
fn lex_all(src: &str, from: usize, to: usize, line: usize, c_mode: bool) -> Parser {
    let mut lx = Lexer::new(src, from, to, line);
    let mut toks = Vec::new();
    loop {
        let (t, l) = lx.next(c_mode).unwrap_or_else(|e| (Tok::Bad(e), lx.line));
        let last = matches!(t, Tok::Eof | Tok::Bad(_));
        toks.push((t, l));
        if last {
            return Parser { toks, i: 0 };
        }
    }
}

/// Check `text` is a C litmus test in the subset of herd7's grammar that [`litmus`] writes.
///
/// Each part follows a herdtools7 file and rule (the subset is stricter than herd where noted):
///
/// | part | herdtools7 | subset checked here |
/// | --- | --- | --- |
/// | first line | lib/splitter.mll `main` | `C` blanks `testname` (letters, digits, `_ / . - + [ ]`), nothing else on the line (herd also takes a `(texname)`, a `"doc"` and a `;`) |
/// | before the init block | lib/splitter.mll `find_init`, lib/lexUtils.mll `skip_comment` | blanks and nesting `(* ... *)` comments whose `(*` ends its line (otherwise herd reads the line as plain text); herd also skips other text and reads `key = value` lines, refused here |
/// | init block | lib/splitter.mll `inside_init` (up to the first `}`), lib/stateParser.mly `init_semi_list`, `atom_init` | `;`-separated (trailing `;` allowed) `loc`, `loc = v` or `type loc = v`, `loc` being `x`, `[x]` or `0:r0`, `v` a number or a name |
/// | code | lib/splitter.mll `inside_prog`; lib/CParser.mly `deep_main`, `trans_unit`, `function_def` | `P<n> ( parameter_list ) { pseudo_seq }`, with `P0`, `P1`, ... in order; the code ends at a word `locations`, `exists`, `forall`, `final`, `filter`, `cases`, `observed` or at `~` |
/// | parameters | lib/CParser.mly `parameter_list`, `parameter_declaration`, `toptyp`/`typ_ptr`, `base0` | `atomic_int * name` or `int * name`, separated by `,`, no name twice |
/// | statements | lib/CParser.mly `pseudo_seq`, `declaration`, `instruction`, `block_ins` | `int r;`, `int r = e;` (`initialisation`), `r = e;`, `atomic_store_explicit(e, e, mo);`, `atomic_thread_fence(mo);`, `{ ... }`; no bare `e;` (older parsers have none) |
/// | expressions | lib/CParser.mly `expr` | a number, a name, `* name`, `( e )`, `atomic_load_explicit(e, mo)`, `atomic_exchange_explicit(e, e, mo)`, `atomic_fetch_{add,sub,or,xor,and}_explicit(e, e, mo)`, `atomic_compare_exchange_{strong,weak}_explicit(e, e, e, mo, mo)`; no operators |
/// | tokens | lib/CLexer.mll | `/* */` and `//` comments; `mo` is one of the six `memory_order_*`; a name is a word `tr_name` does not reserve |
/// | locations | lib/stateParser.mly `constraints`, `locations`, `loc_semi_list` | optional `locations [ loc; ... ]`, trailing `;` allowed (no typed entries) |
/// | condition | lib/stateParser.mly `old_constraints`, `final`, `constr`, `prop`, `atom_prop` | required: `exists p`, `forall p`, `~exists p` / `not exists p`, `final p` or `( p )`, optional `;`, then the end; `p` with `\/` (or `+`) below `/\`, `~`/`not`, `true`, `false`, `( p )` and atoms `loc = v`, `loc == v`, `loc != v` (no `=>`) |
/// | condition tokens | lib/stateLexer.mll | `(* *)` comments, numbers decimal or `0x` hexadecimal, words `alpha (alpha|digit|_|/|.|-)*` |
pub fn check_syntax(text: &str) -> Result<(), String> {
    // First line (lib/splitter.mll `main`).
    let first_end = text.find('\n').unwrap_or(text.len());
    let first = text[..first_end].trim_end_matches('\r');
    let rest = first.trim_start_matches([' ', '\t']);
    let Some(rest) = rest.strip_prefix('C') else {
        return Err("line 1: expected `C <name>`: this is not a C litmus test".into());
    };
    if !rest.starts_with([' ', '\t']) {
        return Err("line 1: expected `C <name>`".into());
    }
    let name = rest.trim_matches([' ', '\t']);
    check_test_name(name).map_err(|e| format!("line 1: {e}"))?;

    // Up to the init block (lib/splitter.mll `find_init`).
    let mut lx = Lexer::new(text, first_end, text.len(), 1);
    loop {
        while lx.peek_byte(0).is_some_and(|b| b.is_ascii_whitespace()) {
            lx.bump(1);
        }
        if lx.starts("(*") {
            // `find_init` takes the longest match: only a `(*` ending its line opens a comment.
            if !matches!(lx.peek_byte(2), None | Some(b'\n')) {
                return Err(format!(
                    "line {}: `(*` followed by text on its line: herd reads that line as text, not as a comment",
                    lx.line
                ));
            }
            lx.skip_ocaml_comment()?;
        } else if lx.starts("{") {
            break;
        } else if lx.pos >= lx.end {
            return Err("no init block `{ ... }`".into());
        } else {
            return Err(format!("line {}: expected a comment `(*` or the init block `{{`", lx.line));
        }
    }

    // Init block (lib/splitter.mll `inside_init`, lib/stateParser.mly `init`).
    let init_line = lx.line;
    let init_from = lx.pos + 1;
    let Some(close) = text[init_from..].find('}').map(|k| init_from + k) else {
        return Err(format!("line {init_line}: unbalanced braces: the init block `{{` is never closed"));
    };
    let mut ip = lex_all(text, init_from, close, init_line, false);
    parse_init(&mut ip)?;
    let code_line = init_line + text[init_from..close].matches('\n').count();

    // Code (lib/splitter.mll `inside_prog`, lib/CParser.mly): lex up to the constraints.
    let mut lx = Lexer::new(text, close + 1, text.len(), code_line);
    let mut toks = Vec::new();
    let constr_from;
    let constr_line;
    loop {
        if let Err(e) = lx.skip_blank(true) {
            toks.push((Tok::Bad(e), lx.line));
            (constr_from, constr_line) = (text.len(), lx.line);
            break;
        }
        let (at, line) = (lx.pos, lx.line);
        let (t, l) = lx.next(true).unwrap_or_else(|e| (Tok::Bad(e), line));
        let ends = match &t {
            Tok::Word(w) => CONSTRAINT_WORDS.contains(&w.as_str()),
            Tok::Sym("~") | Tok::Eof => true,
            _ => false,
        };
        if let Tok::Bad(_) = t {
            toks.push((t, l));
            (constr_from, constr_line) = (text.len(), line);
            break;
        }
        if ends {
            toks.push((Tok::Eof, l));
            (constr_from, constr_line) = (at, line);
            break;
        }
        toks.push((t, l));
    }
    let mut cp = Parser { toks, i: 0 };
    parse_code(&mut cp)?;

    // Constraints (lib/stateParser.mly `constraints`).
    let mut sp = lex_all(text, constr_from, text.len(), constr_line, false);
    parse_constraints(&mut sp)
}

/// lib/stateParser.mly `init_semi_list`: `atom_init (; atom_init)* ;?`, possibly empty.
fn parse_init(p: &mut Parser) -> Result<(), String> {
    loop {
        if *p.peek() == Tok::Eof {
            return Ok(());
        }
        // `atom_init`: `NAME location ...` (a type first) or `location ...`.
        if matches!(p.peek(), Tok::Word(_)) && matches!(p.peek_at(1), Tok::Word(_) | Tok::Sym("[")) {
            state_name(p, "a type")?;
        }
        parse_state_location(p)?;
        if p.eat("=") {
            parse_value(p)?;
        }
        if *p.peek() == Tok::Eof {
            return Ok(());
        }
        if !p.eat(";") {
            return p.err("`;` or the `}` closing the init block");
        }
    }
}

/// A name of the state lexer that is no keyword.
fn state_name(p: &mut Parser, what: &str) -> Result<String, String> {
    match p.peek().clone() {
        Tok::Word(w) if !STATE_KEYWORDS.contains(&w.as_str()) => {
            p.next();
            Ok(w)
        }
        _ => p.err(what),
    }
}

/// lib/stateParser.mly `maybev`: a number or a name.
fn parse_value(p: &mut Parser) -> Result<(), String> {
    if matches!(p.peek(), Tok::Num(_)) {
        p.next();
        return Ok(());
    }
    state_name(p, "a value").map(drop)
}

/// lib/stateParser.mly `location` (subset): `N:reg` (`location_reg`), `[x]`, `x`.
fn parse_state_location(p: &mut Parser) -> Result<(), String> {
    match p.peek().clone() {
        Tok::Num(n) if matches!(p.peek_at(1), Tok::Sym(":")) => {
            if n.starts_with('-') || n.starts_with("0x") || n.starts_with("0X") {
                return p.err("a thread number");
            }
            p.next();
            p.next();
            state_name(p, "a register after `:`").map(drop)
        }
        Tok::Word(w) if matches!(p.peek_at(1), Tok::Sym(":")) && proc_number(&w).is_some() => {
            p.next();
            p.next();
            state_name(p, "a register after `:`").map(drop)
        }
        Tok::Sym("[") => {
            p.next();
            parse_value(p)?;
            p.expect("]")
        }
        Tok::Word(_) => state_name(p, "a location").map(drop),
        _ => p.err("a location (`x`, `[x]` or `0:r0`)"),
    }
}

/// `P<n>` as a process number (lib/CLexer.mll and lib/stateLexer.mll `'P' num`).
fn proc_number(w: &str) -> Option<usize> {
    let digits = w.strip_prefix('P')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// lib/stateParser.mly `constraints`: `locations filter old_constraints` (no `filter`, no
/// `with`), with a condition required.
fn parse_constraints(p: &mut Parser) -> Result<(), String> {
    if p.eat_word("locations") {
        if !p.eat("[") {
            return p.err("`[` after `locations`");
        }
        // `loc_semi_list`: empty, `;`, or `loc (; loc_semi_list)?`.
        loop {
            if p.eat("]") {
                break;
            }
            let starts_location = match p.peek() {
                Tok::Num(_) | Tok::Sym("[") => true,
                Tok::Word(w) => !STATE_KEYWORDS.contains(&w.as_str()),
                _ => false,
            };
            if !starts_location {
                return p.err("a location or the `]` closing `locations [`");
            }
            parse_state_location(p).map_err(|e| format!("in `locations [...]`: {e}"))?;
            if p.eat("]") {
                break;
            }
            if !p.eat(";") {
                return p.err("`;` or `]` in `locations [...]`");
            }
        }
    }
    // `constr`.
    if p.eat_word("exists") || p.eat_word("forall") || p.eat_word("final") {
        parse_prop(p)?;
    } else if p.eat("~") || p.eat_word("not") {
        if !p.eat_word("exists") {
            return p.err("`exists` after `~`");
        }
        parse_prop(p)?;
    } else if *p.peek() == Tok::Sym("(") {
        parse_prop(p)?;
    } else {
        return p.err("a final condition (`exists`, `forall` or `~exists`)");
    }
    p.eat(";");
    if *p.peek() != Tok::Eof {
        return p.err("the end of the test after the condition");
    }
    Ok(())
}

/// lib/stateParser.mly `prop`: `\/` (and `+`) bind less than `/\`; `~`/`not` most.
fn parse_prop(p: &mut Parser) -> Result<(), String> {
    parse_conj(p)?;
    while p.eat("\\/") || p.eat("+") {
        parse_conj(p)?;
    }
    Ok(())
}

fn parse_conj(p: &mut Parser) -> Result<(), String> {
    parse_unary(p)?;
    while p.eat("/\\") {
        parse_unary(p)?;
    }
    Ok(())
}

fn parse_unary(p: &mut Parser) -> Result<(), String> {
    if p.eat("~") || p.eat_word("not") {
        return parse_unary(p);
    }
    if p.eat_word("true") || p.eat_word("false") {
        return Ok(());
    }
    if p.eat("(") {
        parse_prop(p)?;
        return p.expect(")");
    }
    // `atom_prop`: `location (= | == | !=) maybev`.
    parse_state_location(p)?;
    if !(p.eat("=") || p.eat("==") || p.eat("!=") || p.eat("<>")) {
        return p.err("`=` in a condition atom");
    }
    parse_value(p)
}

/// lib/CParser.mly `trans_unit`: one `function_def` or more, `P0`, `P1`, ... in order.
fn parse_code(p: &mut Parser) -> Result<(), String> {
    let mut expect_proc = 0usize;
    while *p.peek() != Tok::Eof {
        let n = match p.peek() {
            Tok::Word(w) => proc_number(w),
            _ => None,
        };
        match n {
            Some(n) if n == expect_proc => {}
            Some(n) => return Err(format!("line {}: P{n} where P{expect_proc} was expected", p.line())),
            None => return p.err(&format!("`P{expect_proc}` or the final condition")),
        }
        p.next();
        parse_function(p).map_err(|e| format!("P{expect_proc}: {e}"))?;
        expect_proc += 1;
    }
    if expect_proc == 0 {
        return p.err("a process `P0 (...) { ... }`");
    }
    Ok(())
}

/// lib/CParser.mly `function_def` after `P<n>`: `( parameter_list ) { pseudo_seq }`.
fn parse_function(p: &mut Parser) -> Result<(), String> {
    p.expect("(")?;
    let mut names: Vec<String> = Vec::new();
    if !p.eat(")") {
        loop {
            // `parameter_declaration`: `typ * name`.
            if !(p.eat_word("atomic_int") || p.eat_word("int")) {
                return p.err("a parameter type (`atomic_int` or `int`)");
            }
            p.expect("*").map_err(|e| format!("{e} (a parameter is a pointer)"))?;
            let name = c_name(p, "a parameter name")?;
            if names.contains(&name) {
                return Err(format!("line {}: parameter `{name}` twice", p.line()));
            }
            names.push(name);
            if p.eat(")") {
                break;
            }
            if !p.eat(",") {
                return p.err("`,` or `)` in the parameter list");
            }
        }
    }
    p.expect("{")?;
    let mut count = 0;
    while !p.eat("}") {
        if *p.peek() == Tok::Eof {
            return Err(format!("line {}: unbalanced braces: the body's `{{` is never closed", p.line()));
        }
        parse_statement(p)?;
        count += 1;
    }
    if count == 0 {
        return Err(format!("line {}: an empty body (`pseudo_seq` needs a statement)", p.line()));
    }
    Ok(())
}

/// A C name: a word lib/CLexer.mll's `tr_name` does not reserve and that is no `P<n>`.
fn c_name(p: &mut Parser, what: &str) -> Result<String, String> {
    match p.peek().clone() {
        Tok::Word(w) if !is_c_reserved(&w) && !MEMORY_ORDERS.contains(&w.as_str()) && proc_number(&w).is_none() => {
            p.next();
            Ok(w)
        }
        _ => p.err(what),
    }
}

/// lib/CParser.mly `block_ins` / `instruction` / `declaration` (subset).
fn parse_statement(p: &mut Parser) -> Result<(), String> {
    if let Tok::Word(w) = p.peek() {
        if proc_number(w).is_some() {
            return Err(format!("line {}: unbalanced braces: `{w}` inside a body, a `}}` is missing", p.line()));
        }
    }
    if p.eat("{") {
        // `LBRACE ins_seq RBRACE`.
        let mut count = 0;
        while !p.eat("}") {
            if *p.peek() == Tok::Eof {
                return Err(format!("line {}: unbalanced braces: a block's `{{` is never closed", p.line()));
            }
            parse_statement(p)?;
            count += 1;
        }
        if count == 0 {
            return Err(format!("line {}: an empty block", p.line()));
        }
        return Ok(());
    }
    if p.eat_word("int") || p.eat_word("atomic_int") {
        // `declaration` (`typ NAME ;`) or `initialisation` (`typ NAME = expr`).
        c_name(p, "a variable name")?;
        if p.eat("=") {
            parse_expr(p)?;
        }
        return p.expect(";");
    }
    if p.eat_word("atomic_store_explicit") {
        p.expect("(")?;
        parse_expr(p)?;
        p.expect(",")?;
        parse_expr(p)?;
        p.expect(",")?;
        memory_order(p)?;
        p.expect(")")?;
        return p.expect(";");
    }
    if p.eat_word("atomic_thread_fence") {
        p.expect("(")?;
        memory_order(p)?;
        p.expect(")")?;
        return p.expect(";");
    }
    if matches!(p.peek(), Tok::Word(_)) && *p.peek_at(1) == Tok::Sym("=") {
        c_name(p, "a variable")?;
        p.next();
        parse_expr(p)?;
        return p.expect(";");
    }
    p.err("a statement (`int r = ...;`, `r = ...;`, `atomic_store_explicit(...);` or `atomic_thread_fence(...);`)")
}

/// lib/CLexer.mll `MEMORDER`.
fn memory_order(p: &mut Parser) -> Result<(), String> {
    match p.peek() {
        Tok::Word(w) if MEMORY_ORDERS.contains(&w.as_str()) => {
            p.next();
            Ok(())
        }
        Tok::Word(w) if w.starts_with("memory_order_") => {
            Err(format!("line {}: `{w}` is not a memory order ({})", p.line(), MEMORY_ORDERS.join(", ")))
        }
        _ => p.err("a memory order (`memory_order_...`)"),
    }
}

/// lib/CParser.mly `expr` (subset, no operators).
fn parse_expr(p: &mut Parser) -> Result<(), String> {
    let call = |p: &mut Parser, exprs: usize, orders: usize| -> Result<(), String> {
        p.expect("(")?;
        for k in 0..exprs {
            if k > 0 {
                p.expect(",")?;
            }
            parse_expr(p)?;
        }
        for _ in 0..orders {
            p.expect(",")?;
            memory_order(p)?;
        }
        p.expect(")")
    };
    match p.peek().clone() {
        Tok::Num(_) => {
            p.next();
            Ok(())
        }
        Tok::Sym("*") => {
            p.next();
            c_name(p, "a name after `*`").map(drop)
        }
        Tok::Sym("(") => {
            p.next();
            parse_expr(p)?;
            p.expect(")")
        }
        Tok::Word(w) => match w.as_str() {
            "atomic_load_explicit" => {
                p.next();
                call(p, 1, 1)
            }
            "atomic_exchange_explicit"
            | "atomic_fetch_add_explicit"
            | "atomic_fetch_sub_explicit"
            | "atomic_fetch_or_explicit"
            | "atomic_fetch_xor_explicit"
            | "atomic_fetch_and_explicit" => {
                p.next();
                call(p, 2, 1)
            }
            "atomic_compare_exchange_strong_explicit" | "atomic_compare_exchange_weak_explicit" => {
                p.next();
                call(p, 3, 2)
            }
            _ => c_name(p, "an expression").map(drop),
        },
        _ => p.err("an expression"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c11::program::Mo;

    fn outcome(regs: &[&[u64]], locs: &[u64]) -> Outcome {
        Outcome { regs: regs.iter().map(|r| r.to_vec()).collect(), locs: locs.to_vec() }
    }

    const MP: &str = "T0: x.store(1, rel); y.store(1, rel)\nT1: y.load(acq); x.load(rlx)\n";

    fn mp_reached() -> BTreeSet<Outcome> {
        [outcome(&[&[], &[0, 0]], &[1, 1]), outcome(&[&[], &[0, 1]], &[1, 1]), outcome(&[&[], &[1, 1]], &[1, 1])]
            .into_iter()
            .collect()
    }

    #[test]
    fn message_passing_exports_exactly() {
        let p = Program::parse(MP).unwrap();
        let got = litmus("MP", &p, &mp_reached()).unwrap();
        let want = "\
C MP
(*
T0: x.store(1, rel); y.store(1, rel)
T1: y.load(acq); x.load(rlx)
loom reached 3 final states:
1:r0=0; 1:r1=0; [x]=1; [y]=1;
1:r0=0; 1:r1=1; [x]=1; [y]=1;
1:r0=1; 1:r1=1; [x]=1; [y]=1;
*)

{ x = 0; y = 0; }

P0 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_release);
  atomic_store_explicit(y, 1, memory_order_release);
}

P1 (atomic_int* x, atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_acquire);
  int r1 = atomic_load_explicit(x, memory_order_relaxed);
}

locations [x; y; 1:r0; 1:r1;]
exists (1:r0=0 /\\ 1:r1=0 /\\ [x]=1 /\\ [y]=1)
";
        assert_eq!(got, want, "\n{got}");
        check_syntax(&got).unwrap();
    }

    #[test]
    fn exports_pass_the_syntax_check() {
        let cases = [
            // The brief's program: acq/rel orders, a compare-exchange, a fence, a swap.
            "T0: x.store(1, rel); y.load(acq)\nT1: y.cas(0, 2, acq_rel, rlx); fence(sc); x.swap(3, rlx)",
            // Three locations, three threads.
            "T0: x.store(1); y.load(); z.cas(0, 1)\nT1: y.store(1, rel); z.load(acq)\nT2: z.swap(2); x.load(rlx); fence(acq_rel)",
            // fetch_add, and t0 on loom's main thread.
            "main: T0\nT0: x.fetch_add(2, acq_rel); x.load()\nT1: x.fetch_add(3, rlx); x.cas(5, 1, sc, acq); x.cas(3, 4)",
            // A thread with no register, a thread of fences.
            "T0: x.store(1)\nT1: fence(rel); fence(acq)\nT2: x.load()",
        ];
        for text in cases {
            let p = Program::parse(text).unwrap();
            let regs = p.registers();
            let o = Outcome { regs: regs.iter().map(|&n| vec![0; n]).collect(), locs: vec![1; p.locs as usize] };
            let reached: BTreeSet<Outcome> = [o].into_iter().collect();
            let out = litmus("T+1", &p, &reached).unwrap();
            check_syntax(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
            // Nothing reached still gives a condition.
            let out = litmus("T+1", &p, &BTreeSet::new()).unwrap();
            assert!(out.ends_with("exists (true)\n"), "{out}");
            check_syntax(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        }
    }

    #[test]
    fn compare_exchange_reads_into_its_register_through_its_location() {
        let p = Program::parse(
            "T0: x.store(1, rel); y.load(acq)\nT1: y.cas(0, 2, acq_rel, rlx); fence(sc); x.swap(3, rlx)",
        )
        .unwrap();
        let out = litmus("CAS", &p, &BTreeSet::new()).unwrap();
        assert!(out.contains("{ x = 0; y = 0; e0 = 0; }\n"), "{out}");
        assert!(out.contains("P1 (atomic_int* x, atomic_int* y, int* e0) {\n"), "{out}");
        assert!(out.contains(
            "  int ok0 = atomic_compare_exchange_strong_explicit(y, e0, 2, memory_order_acq_rel, memory_order_relaxed);\n  int r0 = *e0;\n  atomic_thread_fence(memory_order_seq_cst);\n  int r1 = atomic_exchange_explicit(x, 3, memory_order_relaxed);\n"
        ), "{out}");
        assert!(out.contains("locations [x; y; 0:r0; 1:r0; 1:r1;]\n"), "{out}");
        // Numbered across the program, each in its own thread's parameters.
        let p = Program::parse("T0: x.cas(1, 2)\nT1: x.cas(2, 3); x.cas(0, 7)").unwrap();
        let out = litmus("CAS2", &p, &BTreeSet::new()).unwrap();
        assert!(out.contains("{ x = 0; e0 = 1; e1 = 2; e2 = 0; }"), "{out}");
        assert!(out.contains("P0 (atomic_int* x, int* e0)"), "{out}");
        assert!(out.contains("P1 (atomic_int* x, int* e1, int* e2)"), "{out}");
        assert!(out.contains("  int r1 = *e2;\n"), "{out}");
    }

    #[test]
    fn outcomes_are_one_a_line_in_the_comment() {
        let p = Program::parse(MP).unwrap();
        let reached = mp_reached();
        let out = litmus("MP", &p, &reached).unwrap();
        let comment = &out[out.find("(*\n").unwrap() + 3..out.find("*)\n").unwrap()];
        let lines: Vec<&str> = comment.lines().collect();
        let at = lines.iter().position(|l| *l == "loom reached 3 final states:").unwrap();
        let listed: Vec<String> = lines[at + 1..].iter().map(|l| l.to_string()).collect();
        let want: Vec<String> = reached.iter().map(Outcome::to_string).collect();
        assert_eq!(listed, want);
        assert_eq!(lines[..at].join("\n") + "\n", p.to_string());
    }

    #[test]
    fn refusals() {
        let p = Program::parse("T0: lock(m0); x.store(1); unlock(m0)\nT1: x.load()").unwrap();
        let err = litmus("M", &p, &BTreeSet::new()).unwrap_err();
        assert!(err.contains("mutex"), "{err}");
        let bad = Program { locs: 1, threads: vec![vec![Op::Load { loc: 0, mo: Mo::Release }]], t0_on_main: false };
        let err = litmus("B", &bad, &BTreeSet::new()).unwrap_err();
        assert!(err.contains("invalid program"), "{err}");
        let p = Program::parse(MP).unwrap();
        assert!(litmus("has space", &p, &BTreeSet::new()).unwrap_err().contains("test name"));
        assert!(litmus("", &p, &BTreeSet::new()).is_err());
        let wrong: BTreeSet<Outcome> = [outcome(&[&[0], &[0, 0]], &[1, 1])].into_iter().collect();
        assert!(litmus("MP", &p, &wrong).unwrap_err().contains("does not have"));
    }

    fn mp_text() -> String {
        litmus("MP", &Program::parse(MP).unwrap(), &mp_reached()).unwrap()
    }

    fn rejected(text: &str, why: &str) {
        let err = check_syntax(text).expect_err(text);
        assert!(err.contains(why), "expected `{why}` in `{err}` for\n{text}");
    }

    #[test]
    fn malformed_texts_are_rejected() {
        let good = mp_text();
        let bad = |from: &str, to: &str| {
            assert!(good.contains(from), "{from}");
            good.replacen(from, to, 1)
        };
        // A missing semicolon.
        rejected(&bad("memory_order_release);\n  atomic", "memory_order_release)\n  atomic"), "expected `;`");
        rejected(&bad("{ x = 0; y = 0; }", "{ x = 0 y = 0; }"), "`;` or the `}`");
        // An unknown memory order.
        rejected(&bad("memory_order_acquire", "memory_order_acquired"), "not a memory order");
        rejected(&bad("memory_order_relaxed", "relaxed"), "expected a memory order");
        // Unbalanced braces.
        rejected(&bad("memory_order_release);\n}\n", "memory_order_release);\n\n"), "unbalanced braces");
        rejected(&bad("{ x = 0; y = 0; }", "{ x = 0; y = 0;"), "`;` or the `}`");
        rejected(&good.replace("{ x = 0; y = 0; }", "{ x = 0; y = 0;").replace('}', ""), "unbalanced braces");
        rejected(&bad("P1 (", "} P1 ("), "expected `P1`");
        // Bad location clauses.
        rejected(&bad("[x; y; 1:r0; 1:r1;]", "[x y; 1:r0; 1:r1;]"), "`;` or `]`");
        rejected(&bad("[x; y; 1:r0; 1:r1;]", "x; y; 1:r0; 1:r1;"), "`[` after `locations`");
        rejected(&bad("[x; y; 1:r0; 1:r1;]", "[x; y; 1:; 1:r1;]"), "a register after `:`");
        rejected(&bad("[x; y; 1:r0; 1:r1;]", "[x; y; 1:r0; 1:r1;"), "the `]` closing");
        // Other shapes.
        rejected(&bad("exists (", "exits ("), "expected a final condition");
        rejected(&bad("\nlocations", "\nx = 1;\nlocations"), "expected `P2` or the final condition");
        rejected(&good.replace("exists (1:r0=0 /\\ 1:r1=0 /\\ [x]=1 /\\ [y]=1)\n", ""), "a final condition");
        rejected(&bad("1:r1=0 /\\", "1:r1=0 /\\ /\\"), "a location");
        rejected(&bad("C MP", "X86 MP"), "not a C litmus test");
        rejected(&bad("(*\n", "(* "), "`(*` followed by text");
        rejected(&bad("*)\n", "\n"), "never closed");
        rejected(&bad("atomic_int* y) {\n  int r0", "atomic_int y) {\n  int r0"), "a parameter is a pointer");
        rejected(&bad("int r0 =", "int exists ="), "expected a variable name");
        rejected(&bad("P0 (", "P1 ("), "P1 where P0 was expected");
        rejected(&bad("int r1 = atomic_load_explicit(x,", "int r1 = atomic_load_explicit(x x,"), "expected `,`");
    }

    #[test]
    fn herd_own_test_shapes_pass() {
        // Shapes of herdtools7's herd/tests/instructions/C tests (written here, not copied):
        // comments, `[x]`/`x` atoms, `~exists`, `!=`, hexadecimal values, typed init.
        let text = "C T\n(*\n a (* nested *) comment\n*)\n{ int x = 1; [y] = 0; 0:r0 = 0 }\n\nP0 (int* y, atomic_int* x) {\n  /* C comment */ int r0 = *x; // line comment\n  int r1;\n  r1 = atomic_exchange_explicit(y, 2, memory_order_consume);\n  { atomic_store_explicit(x, 1, memory_order_seq_cst); }\n}\n\nlocations [0:r1;]\n~exists (0:r0 != 0x1 \\/ not (x=1 /\\ [y]=2) \\/ true);\n";
        check_syntax(text).unwrap();
        check_syntax("C U\n{}\nP0 (atomic_int* y) {\n  int r = atomic_fetch_add_explicit(y, 1, memory_order_relaxed);\n}\nforall y=1\n").unwrap();
    }
}
