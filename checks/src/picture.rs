//! Pictures of counterexamples: an SVG swimlane (one lane per thread, one box per step with the
//! kernel function and what it read, wrote or decided, the violated property at the end) and
//! Mermaid sequence-diagram text. Both are written by hand (no dependency), with every piece of
//! trace text escaped for XML or Mermaid. A step with a stale read (loom's weak memory) is drawn
//! in a colour of its own with its marks; in the SVG an arrow comes to it from the store it read
//! (reads-from) and a dashed one goes from it to the store it did not see.

use crate::matrix::{CounterexampleJson, Row};
use std::fmt::Write as _;
use wb_core::trace::describe_stale;

/// One counterexample with the heading it is drawn under.
pub struct Panel<'a> {
    pub title: String,
    pub property: &'a str,
    pub cx: &'a CounterexampleJson,
}

/// The panels of a row: one per counterexample, titled with the row and property.
pub fn row_panels(r: &Row) -> Vec<Panel<'_>> {
    r.counterexamples
        .iter()
        .map(|(property, cx)| Panel {
            title: format!("{} {} ({}): {} violated", r.scenario, r.revision, r.checker, property),
            property,
            cx,
        })
        .collect()
}

const MARGIN: usize = 16;
const LANE_W: usize = 390;
const LANE_GAP: usize = 14;
const LINE_H: usize = 15;
const PAD: usize = 6;
const FONT: usize = 12;
/// Characters that fit in `px` pixels (monospace, at most 0.62 em per character).
const fn chars_in(px: usize) -> usize {
    px * 100 / (FONT * 62)
}
/// Characters per line in a lane box.
const LANE_CHARS: usize = chars_in(LANE_W - 2 * PAD);
const FILLS: [&str; 6] = ["#e8f0fe", "#e6f4ea", "#fef7e0", "#f3e8fd", "#e0f7fa", "#fce8e6"];
const STROKES: [&str; 6] = ["#4a6fb5", "#3b8c57", "#b08a1e", "#7e4bb5", "#2a8c99", "#b5523b"];
/// A step with a stale read: fill, and stroke of its box, its marks and its arrows.
const STALE_FILL: &str = "#ffe8cc";
const STALE: &str = "#d9480f";
/// The arrowhead of the stale-read arrows, defined once per picture.
const ARROW: &str = "stale-arrow";

/// XML text and attribute escaping.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Break `text` into lines of at most `width` characters, at spaces where possible.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word = word.to_string();
        while word.chars().count() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
        }
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The threads of a counterexample, in order of first appearance.
fn threads(cx: &CounterexampleJson) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for s in &cx.steps {
        if !names.contains(&s.thread.as_str()) {
            names.push(&s.thread);
        }
    }
    names
}

fn text_lines(out: &mut String, x: usize, y: usize, lines: &[String], first_bold: bool) {
    for (i, line) in lines.iter().enumerate() {
        let weight = if first_bold && i == 0 { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(out, r#"<text x="{x}" y="{}"{weight}>{}</text>"#, y + (i + 1) * LINE_H - 3, xml_escape(line));
    }
}

/// Where a step's box is: lane x, top, height.
#[derive(Clone, Copy)]
struct Placed {
    x: usize,
    y: usize,
    h: usize,
}

/// An arrow from box `from` to box `to`, leaving and entering on the sides that face each other
/// (on the right side, bulging out a little, when both are in one lane).
fn arrow(out: &mut String, from: Placed, to: Placed, class: &str, dashed: bool, title: &str) {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (fy, ty) = (from.y + from.h / 2, to.y + to.h / 2);
    let pull = 4 * LANE_GAP;
    let (fx, tx, c1, c2) = match from.x.cmp(&to.x) {
        Less => (from.x + LANE_W, to.x, from.x + LANE_W + pull, to.x - pull),
        Greater => (from.x, to.x + LANE_W, from.x - pull, to.x + LANE_W + pull),
        Equal => {
            let x = from.x + LANE_W;
            (x, x, x + LANE_GAP, x + LANE_GAP)
        }
    };
    let dash = if dashed { r#" stroke-dasharray="5 3""# } else { "" };
    let _ = writeln!(
        out,
        r#"<path class="{class}" d="M {fx} {fy} C {c1} {fy}, {c2} {ty}, {tx} {ty}" fill="none" stroke="{STALE}" stroke-width="1.5"{dash} marker-end="url(#{ARROW})"><title>{}</title></path>"#,
        xml_escape(title)
    );
}

/// Draw one panel at vertical offset `top` with `lanes` lanes; returns its height.
fn panel(out: &mut String, p: &Panel<'_>, top: usize, width: usize, lanes: &[&str]) -> usize {
    let full_chars = chars_in(width - 2 * MARGIN - 2 * PAD);
    let mut y = top;
    let title = wrap(&p.title, full_chars);
    text_lines(out, MARGIN, y, &title, true);
    y += title.len() * LINE_H;
    let mut meta = Vec::new();
    if !p.cx.configuration.is_empty() {
        meta.extend(wrap(&format!("configuration: {}", p.cx.configuration), full_chars));
    }
    meta.extend(wrap(&format!("placement: {}", p.cx.placement), full_chars));
    if let Some(k) = p.cx.min_preemptions {
        meta.push(format!("smallest loom preemption bound with this violation: {k}"));
    }
    if let Some(r) = &p.cx.replay {
        meta.extend(wrap(&format!("replay: {r}"), full_chars));
    }
    text_lines(out, MARGIN, y, &meta, false);
    y += meta.len() * LINE_H + 8;
    let lane_x = |i: usize| MARGIN + i * (LANE_W + LANE_GAP);
    let head_top = y;
    for (i, name) in lanes.iter().enumerate() {
        let (fill, stroke) = (FILLS[i % FILLS.len()], STROKES[i % STROKES.len()]);
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{y}" width="{LANE_W}" height="{}" rx="4" fill="{fill}" stroke="{stroke}"/>"#,
            lane_x(i),
            LINE_H + 2 * PAD
        );
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-weight="bold" text-anchor="middle">{}</text>"#,
            lane_x(i) + LANE_W / 2,
            y + PAD + LINE_H - 3,
            xml_escape(name)
        );
    }
    y += LINE_H + 2 * PAD + 8;
    let mut boxes = String::new();
    let mut placed = Vec::with_capacity(p.cx.steps.len());
    for (n, s) in p.cx.steps.iter().enumerate() {
        let lane = lanes.iter().position(|t| *t == s.thread).unwrap_or(0);
        let mut lines = wrap(&format!("{} {}", n + 1, s.function), LANE_CHARS);
        lines.extend(wrap(&s.detail, LANE_CHARS));
        let marks: Vec<String> = s
            .stale
            .iter()
            .flat_map(|st| wrap(&describe_stale(&st.location, st.store_step, st.stored, st.read_from), LANE_CHARS))
            .collect();
        let h = (lines.len() + marks.len()) * LINE_H + 2 * PAD;
        let (fill, stroke, class) = if s.stale.is_empty() {
            (FILLS[lane % FILLS.len()], STROKES[lane % STROKES.len()], "step")
        } else {
            (STALE_FILL, STALE, "step stale")
        };
        let _ = writeln!(
            boxes,
            r#"<rect class="{class}" x="{}" y="{y}" width="{LANE_W}" height="{h}" rx="3" fill="{fill}" stroke="{stroke}"/>"#,
            lane_x(lane)
        );
        text_lines(&mut boxes, lane_x(lane) + PAD, y + PAD, &lines, true);
        for (i, mark) in marks.iter().enumerate() {
            let _ = writeln!(
                boxes,
                r#"<text x="{}" y="{}" fill="{STALE}">{}</text>"#,
                lane_x(lane) + PAD,
                y + PAD + (lines.len() + i + 1) * LINE_H - 3,
                xml_escape(mark)
            );
        }
        placed.push(Placed { x: lane_x(lane), y, h });
        y += h + 4;
    }
    // The stale reads' edges, over the boxes: reads-from (the store read) and from-read (the
    // store not seen).
    for (n, s) in p.cx.steps.iter().enumerate() {
        for st in &s.stale {
            let step = |k: usize| placed.get(k.wrapping_sub(1)).copied().filter(|_| k != n + 1);
            if let Some(from) = st.read_from.and_then(step) {
                let title = format!("step {} reads {} from step {}", n + 1, st.location, st.read_from.unwrap_or(0));
                arrow(&mut boxes, from, placed[n], "reads-from", false, &title);
            }
            if let Some(to) = step(st.store_step) {
                let title = format!("step {} did not see step {}'s store to {}", n + 1, st.store_step, st.location);
                arrow(&mut boxes, placed[n], to, "from-read", true, &title);
            }
        }
    }
    // Lifelines under the boxes.
    for i in 0..lanes.len() {
        let x = lane_x(i) + LANE_W / 2;
        let _ = writeln!(
            out,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{y}" stroke="#999" stroke-dasharray="4 4"/>"##,
            head_top + LINE_H + 2 * PAD
        );
    }
    out.push_str(&boxes);
    y += 4;
    let verdict = wrap(&format!("property {} violated: {}", p.property, p.cx.message), full_chars);
    let h = verdict.len() * LINE_H + 2 * PAD;
    let _ = writeln!(
        out,
        r##"<rect x="{MARGIN}" y="{y}" width="{}" height="{h}" rx="4" fill="#fde2e2" stroke="#c0392b" stroke-width="2"/>"##,
        width - 2 * MARGIN
    );
    text_lines(out, MARGIN + PAD, y + PAD, &verdict, false);
    y += h;
    y - top
}

/// An SVG swimlane picture of the panels, stacked top to bottom.
pub fn svg(panels: &[Panel<'_>]) -> String {
    let lanes = panels.iter().map(|p| threads(p.cx).len()).max().unwrap_or(1).max(1);
    let width = 2 * MARGIN + lanes * LANE_W + (lanes - 1) * LANE_GAP;
    let mut body = String::new();
    let mut y = MARGIN;
    for p in panels {
        let names = threads(p.cx);
        y += panel(&mut body, p, y, width, &names) + 2 * MARGIN;
    }
    let title = panels.iter().map(|p| p.title.as_str()).collect::<Vec<_>>().join("; ");
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" "#,
            r#"font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{f}">"#,
            "\n<title>{t}</title>\n",
            r#"<defs><marker id="{a}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="{s}"/></marker></defs>"#,
            "\n",
            r##"<rect width="{w}" height="{h}" fill="#ffffff"/>"##,
            "\n{b}</svg>\n"
        ),
        w = width,
        h = y,
        f = FONT,
        t = xml_escape(&title),
        a = ARROW,
        s = STALE,
        b = body
    )
}

/// Mermaid escaping: entity codes for the characters Mermaid reads as syntax in a note.
fn mermaid_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            ';' => out.push_str("#59;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A Mermaid sequence diagram of one panel: a participant per thread, a note per step, the
/// violated property over every lane at the end.
pub fn mermaid(p: &Panel<'_>) -> String {
    let lanes = threads(p.cx);
    let mut out = format!("%% {}\nsequenceDiagram\n", mermaid_escape(&p.title));
    for (i, t) in lanes.iter().enumerate() {
        let _ = writeln!(out, "    participant t{i} as {}", mermaid_escape(t));
    }
    for (n, s) in p.cx.steps.iter().enumerate() {
        let lane = lanes.iter().position(|t| *t == s.thread).unwrap_or(0);
        // A stale read's note on a background of its own.
        let stale = !s.stale.is_empty();
        if stale {
            out.push_str("    rect rgb(255, 232, 204)\n");
        }
        let _ = writeln!(
            out,
            "    Note over t{lane}: {} {}: {}",
            n + 1,
            mermaid_escape(&s.function),
            mermaid_escape(&s.marked_detail())
        );
        if stale {
            out.push_str("    end\n");
        }
    }
    let span = if lanes.len() > 1 { format!("t0,t{}", lanes.len() - 1) } else { "t0".into() };
    let _ = writeln!(out, "    Note over {span}: property {} violated: {}", p.property, mermaid_escape(&p.cx.message));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_character_within_the_width() {
        let text =
            "percpu_counter_add_batch: this_cpu_try_cmpxchg(slot[cpu0], 0 -> 1) succeeded averyveryveryverylongword";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        assert_eq!(lines.join(" ").replace(' ', ""), text.replace(' ', ""));
        assert_eq!(wrap("", 5), vec![String::new()]);
    }

    #[test]
    fn escaping() {
        assert_eq!(xml_escape(r#"a<b & "c" 'd'>"#), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
        assert_eq!(mermaid_escape("x = 1; y -> z #"), "x = 1#59; y -#gt; z #35;");
    }
}
