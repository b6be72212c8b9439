//! A small SVG line chart: a few series over a numeric x axis, y linear or log-scaled. Enough for
//! the performance report's plots; no plotting dependency.

use crate::picture::xml_escape;
use std::fmt::Write as _;

/// One line of a chart: its label and its (x, y) points.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart: title, axis labels, series; `log_y` plots y on a base-10 log scale (values <= 0 are
/// left out).
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_y: bool,
    pub series: Vec<Series>,
}

const COLOURS: [&str; 6] = ["#c0392b", "#2471a3", "#229954", "#7d3c98", "#d68910", "#566573"];

impl Chart {
    pub fn to_svg(&self) -> String {
        let (w, h, left, right, top, bottom) = (640.0, 380.0, 70.0, 180.0, 36.0, 320.0);
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|&(_, y)| !self.log_y || y > 0.0)
            .collect();
        let fy = |y: f64| if self.log_y { y.log10() } else { y };
        let (x0, x1) = bounds(pts.iter().map(|p| p.0));
        let (mut y0, mut y1) = bounds(pts.iter().map(|p| fy(p.1)));
        if self.log_y {
            (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
        } else {
            // Four steps of 1, 2, 2.5 or 5 times a power of ten, so the ticks are round numbers.
            y0 = y0.min(0.0);
            let raw = (y1 - y0) / 4.0;
            let unit = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().map(|m| m * unit).find(|s| *s >= raw).unwrap_or(raw);
            y1 = y0 + 4.0 * step;
        }
        let px = |x: f64| left + (x - x0) / (x1 - x0).max(1e-9) * (w - left - right);
        let py = |y: f64| bottom - (fy(y) - y0) / (y1 - y0).max(1e-9) * (bottom - top);
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n"
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
            (left + w - right) / 2.0,
            xml_escape(&self.title)
        );
        let _ =
            writeln!(s, "<line x1=\"{left}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\" stroke=\"black\"/>", w - right);
        let _ = writeln!(s, "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\" stroke=\"black\"/>");
        // x ticks at the distinct x values (the sweeps are small integers).
        let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        for x in xs {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                px(x),
                bottom + 16.0,
                num(x)
            );
        }
        // y ticks: each power of ten (log) or five even steps (linear).
        let ticks: Vec<f64> = if self.log_y {
            (y0 as i32..=y1 as i32).map(|e| 10f64.powi(e)).collect()
        } else {
            (0..=4).map(|i| y0 + (y1 - y0) * f64::from(i) / 4.0).collect()
        };
        for t in ticks {
            let y = py(t);
            let _ =
                writeln!(s, "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>", w - right);
            let _ =
                writeln!(s, "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", left - 6.0, y + 4.0, num(t));
        }
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            (left + w - right) / 2.0,
            h - 12.0,
            xml_escape(&self.x_label)
        );
        let mid = (top + bottom) / 2.0;
        let _ = writeln!(
            s,
            "<text x=\"16\" y=\"{mid}\" transform=\"rotate(-90 16 {mid})\" text-anchor=\"middle\">{}{}</text>",
            xml_escape(&self.y_label),
            if self.log_y { " (log scale)" } else { "" }
        );
        for (i, series) in self.series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let visible: Vec<(f64, f64)> =
                series.points.iter().copied().filter(|&(_, y)| !self.log_y || y > 0.0).collect();
            let line: Vec<String> = visible.iter().map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                line.join(" ")
            );
            for &(x, y) in &visible {
                let _ = writeln!(s, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>", px(x), py(y));
            }
            let ly = top + 10.0 + 18.0 * i as f64;
            let lx = w - right + 12.0;
            let _ = writeln!(
                s,
                "<line x1=\"{lx}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                lx + 18.0
            );
            let _ = writeln!(s, "<text x=\"{}\" y=\"{}\">{}</text>", lx + 24.0, ly + 4.0, xml_escape(&series.label));
        }
        s.push_str("</svg>\n");
        s
    }
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    }
}

/// A tick label: integers plainly, large values with a k/M suffix, small ones with decimals.
fn num(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_chart_has_a_polyline_per_series_and_decade_ticks() {
        let chart = Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_y: true,
            series: vec![
                Series { label: "a".into(), points: vec![(0.0, 10.0), (1.0, 1000.0)] },
                Series { label: "b<".into(), points: vec![(0.0, 0.0), (1.0, 50.0)] },
            ],
        };
        let svg = chart.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains(">1000<") && svg.contains(">10<") && svg.contains("b&lt;"));
        assert_eq!(svg.matches("<circle").count(), 3, "the zero is left out on a log scale");
    }

    #[test]
    fn linear_chart_ticks_are_round() {
        let series = vec![Series { label: "a".into(), points: vec![(1.0, 1.0), (9.0, 80.28)] }];
        let svg = Chart { title: "t".into(), x_label: "x".into(), y_label: "y".into(), log_y: false, series }.to_svg();
        for tick in [">0<", ">25<", ">50<", ">75<", ">100<"] {
            assert!(svg.contains(tick), "{tick} in {svg}");
        }
    }
}
