//! The performance report's line charts (and `simulate folio-dirty --svg`'s), drawn by plotters'
//! SVG backend: a few series over a numeric x axis, y linear or log-scaled.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

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

/// Room for the legend, in pixels.
const LEGEND: u32 = 170;

const COLOURS: [RGBColor; 6] = [
    RGBColor(0xc0, 0x39, 0x2b),
    RGBColor(0x24, 0x71, 0xa3),
    RGBColor(0x22, 0x99, 0x54),
    RGBColor(0x7d, 0x3c, 0x98),
    RGBColor(0xd6, 0x89, 0x10),
    RGBColor(0x56, 0x65, 0x73),
];

impl Chart {
    pub fn to_svg(&self) -> String {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (640, 380)).into_drawing_area();
            let drawn = if self.log_y {
                // Whole decades, so the axis starts and ends at powers of ten.
                let (lo, hi) = span(self.visible().map(|p| p.1.log10()));
                let (lo, hi) = (lo.floor(), hi.ceil().max(lo.floor() + 1.0));
                self.draw(&root, (10f64.powf(lo)..10f64.powf(hi)).log_scale())
            } else {
                let (lo, hi) = span(self.visible().map(|p| p.1));
                self.draw(&root, lo.min(0.0)..hi * 1.1)
            };
            drawn.expect("plotters draws into a string");
        }
        svg
    }

    /// The points of a series the chart can show (a log scale has no place for y <= 0).
    fn shown<'a>(&self, series: &'a Series) -> impl Iterator<Item = (f64, f64)> + 'a {
        let log = self.log_y;
        series.points.iter().copied().filter(move |&(_, y)| !log || y > 0.0)
    }

    fn visible(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.series.iter().flat_map(|s| self.shown(s))
    }

    fn draw<Y>(&self, root: &DrawingArea<SVGBackend<'_>, Shift>, y: Y) -> Result<(), Box<dyn std::error::Error>>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        root.fill(&WHITE)?;
        let (x0, x1) = span(self.visible().map(|p| p.0));
        let pad = (x1 - x0) * 0.04;
        // The legend right of the plot, where it covers no line.
        let (plot, legend) = root.split_horizontally(root.dim_in_pixel().0 - LEGEND);
        let mut chart = ChartBuilder::on(&plot)
            .caption(&self.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), y)?;
        let y_desc = format!("{}{}", self.y_label, if self.log_y { " (log scale)" } else { "" });
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            // A tick per integer on the small integer x axes of the sweeps, fewer on a wide one.
            .x_labels(((x1 - x0).round() as usize + 1).min(12))
            .x_desc(&self.x_label)
            .y_desc(y_desc)
            .x_label_formatter(&|x| num(*x))
            .y_label_formatter(&|y| num(*y))
            .draw()?;
        for (i, (series, colour)) in self.series.iter().zip(COLOURS.into_iter().cycle()).enumerate() {
            let points: Vec<(f64, f64)> = self.shown(series).collect();
            chart.draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(2)))?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
            let y = 46 + 18 * i as i32;
            legend.draw(&PathElement::new([(0, y), (18, y)], colour.stroke_width(2)))?;
            legend.draw(&Text::new(series.label.as_str(), (24, y - 6), ("sans-serif", 12)))?;
        }
        root.present()?;
        Ok(())
    }
}

/// The least and greatest of some values; a unit span around a single value, 0..1 for none.
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
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

    /// The texts of a well-formed SVG, in order.
    fn texts(svg: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect()
    }

    #[test]
    fn log_chart_has_every_series_and_decade_ticks() {
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
        let texts = texts(&svg);
        for t in ["t", "x", "y (log scale)", "10", "100", "1000", "a", "b<"] {
            assert!(texts.iter().any(|x| x == t), "{t:?} in {texts:?}");
        }
        assert_eq!(svg.matches("<circle").count(), 3, "the zero is left out on a log scale");
    }

    #[test]
    fn linear_chart_ticks_are_round() {
        let series = vec![Series { label: "a".into(), points: vec![(1.0, 1.0), (9.0, 80.28)] }];
        let svg = Chart { title: "t".into(), x_label: "x".into(), y_label: "y".into(), log_y: false, series }.to_svg();
        let texts = texts(&svg);
        for tick in ["0", "20", "40", "60", "80", "1", "9"] {
            assert!(texts.iter().any(|x| x == tick), "{tick} in {texts:?}");
        }
        assert!(texts.iter().all(|t| !t.contains('.')), "{texts:?}");
    }
}
