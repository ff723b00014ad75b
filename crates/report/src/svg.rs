//! Hand-written SVG charts: no plotting crate, no fonts to load (text uses the
//! browser's generic sans-serif), nothing fetched. Every label is escaped.

use std::fmt::Write;

use crate::html::esc;

/// A colour per series index; chosen to stay distinguishable when printed.
const PALETTE: [&str; 20] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd",
    "#e6550d", "#31a354", "#756bb1", "#636363",
];

pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

pub struct Series {
    pub name: String,
    /// CSS classes on the series group (the kind filter toggles them).
    pub class: String,
    /// Legacy and broken algorithms are drawn dashed.
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
}

pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

const W: f64 = 900.0;
const PLOT_L: f64 = 70.0;
const PLOT_T: f64 = 30.0;

/// Log-log line chart with a legend to the right; colours follow the series
/// order and `dashed` series are drawn dashed.
pub fn log_log(chart: &LineChart) -> String {
    lines(&Plot {
        title: chart.title.clone(),
        x_label: chart.x_label.clone(),
        y_label: chart.y_label.clone(),
        x_scale: Scale::Log,
        y_scale: Scale::Log,
        lines: chart
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Line {
                name: s.name.clone(),
                class: s.class.clone(),
                colour: colour(i),
                stroke: if s.dashed {
                    Stroke::Dashed
                } else {
                    Stroke::Solid
                },
                points: s.points.clone(),
            })
            .collect(),
    })
}

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Through zero, ticks at 1, 2 or 5 times a power of ten.
    Linear,
    /// Whole decades; values at or below zero are left out.
    Log,
}

impl Scale {
    fn shows(self, v: f64) -> bool {
        match self {
            Scale::Linear => v.is_finite(),
            Scale::Log => v > 0.0 && v.is_finite(),
        }
    }
}

/// A line's stroke, so that two sources (the paper's values and ours) can
/// share a colour and still be told apart, also in print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    Dashed,
    Dotted,
}

impl Stroke {
    fn attribute(self) -> &'static str {
        match self {
            Stroke::Solid => "",
            Stroke::Dashed => " stroke-dasharray=\"6 4\"",
            Stroke::Dotted => " stroke-dasharray=\"2 3\"",
        }
    }
}

/// One line of a [`Plot`], with its own colour and stroke.
pub struct Line {
    pub name: String,
    /// CSS classes on the line's group.
    pub class: String,
    pub colour: &'static str,
    pub stroke: Stroke,
    pub points: Vec<(f64, f64)>,
}

/// A line chart whose axes are each linear or logarithmic.
pub struct Plot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub lines: Vec<Line>,
}

/// An axis fitted to the values it has to show.
struct Axis {
    scale: Scale,
    /// The ends: values on a linear axis, powers of ten on a log axis.
    lo: f64,
    hi: f64,
    /// Distance between ticks, in the same units as the ends.
    step: f64,
}

impl Axis {
    /// None when no value can be shown on this scale.
    fn fit(scale: Scale, values: impl IntoIterator<Item = f64>) -> Option<Axis> {
        let (mut lo, mut hi) = (f64::MAX, f64::MIN);
        for v in values.into_iter().filter(|v| scale.shows(*v)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if lo > hi {
            return None;
        }
        Some(match scale {
            Scale::Log => {
                let lo = lo.log10().floor();
                let hi = hi.log10().ceil().max(lo + 1.0);
                Axis {
                    scale,
                    lo,
                    hi,
                    step: 1.0,
                }
            }
            Scale::Linear => {
                let (lo, hi) = (lo.min(0.0), hi.max(0.0));
                let step = nice_ceiling((hi - lo) / 6.0);
                let lo = (lo / step).floor() * step;
                let hi = ((hi / step).ceil() * step).max(lo + step);
                Axis {
                    scale,
                    lo,
                    hi,
                    step,
                }
            }
        })
    }

    /// Where `v` lies, from 0 at the low end to 1 at the high end.
    fn fraction(&self, v: f64) -> f64 {
        let v = match self.scale {
            Scale::Linear => v,
            Scale::Log => v.log10(),
        };
        (v - self.lo) / (self.hi - self.lo)
    }

    /// A tick's text: decades as the tables print numbers, linear ticks
    /// with as many decimals as the step needs ("20", not "20.0").
    fn label(&self, v: f64) -> String {
        match self.scale {
            Scale::Log => crate::html::num(v),
            Scale::Linear => {
                let decimals = (-self.step.log10()).ceil().max(0.0) as usize;
                format!("{v:.decimals$}")
            }
        }
    }

    fn ticks(&self) -> Vec<f64> {
        match self.scale {
            Scale::Log => (self.lo as i32..=self.hi as i32)
                .map(|d| 10f64.powi(d))
                .collect(),
            Scale::Linear => {
                let n = ((self.hi - self.lo) / self.step).round() as i32;
                (0..=n).map(|k| self.lo + k as f64 * self.step).collect()
            }
        }
    }
}

/// Line chart with a legend to the right; each axis linear or logarithmic.
/// Points a log axis cannot show (zero, negative) are left out.
pub fn lines(plot: &Plot) -> String {
    let (pw, ph) = (560.0, 380.0);
    let shown = |line: &Line| -> Vec<(f64, f64)> {
        line.points
            .iter()
            .copied()
            .filter(|&(x, y)| plot.x_scale.shows(x) && plot.y_scale.shows(y))
            .collect()
    };
    let all: Vec<(f64, f64)> = plot.lines.iter().flat_map(shown).collect();
    let legend_h = plot.lines.len() as f64 * 16.0 + 40.0;
    let h = (PLOT_T + ph + 60.0).max(legend_h);
    let mut s = open_svg(W, h, &plot.title);
    let x_axis = Axis::fit(plot.x_scale, all.iter().map(|p| p.0));
    let y_axis = Axis::fit(plot.y_scale, all.iter().map(|p| p.1));
    let (Some(x_axis), Some(y_axis)) = (x_axis, y_axis) else {
        s.push_str("<text x=\"20\" y=\"40\">no data</text></svg>");
        return s;
    };
    let px = |x: f64| PLOT_L + x_axis.fraction(x) * pw;
    let py = |y: f64| PLOT_T + ph - y_axis.fraction(y) * ph;
    axes(&mut s, pw, ph, &plot.x_label, &plot.y_label);
    for v in x_axis.ticks() {
        let x = px(v);
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{PLOT_T}\" x2=\"{x:.1}\" y2=\"{:.1}\" class=\"grid\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"tick\">{}</text>",
            PLOT_T + ph,
            PLOT_T + ph + 16.0,
            esc(&x_axis.label(v))
        );
    }
    y_ticks(&mut s, &y_axis, pw, &py);
    for (i, line) in plot.lines.iter().enumerate() {
        let c = line.colour;
        let dash = line.stroke.attribute();
        let _ = write!(
            s,
            "<g class=\"series {}\"><title>{}</title>",
            esc(&line.class),
            esc(&line.name)
        );
        let path: Vec<String> = shown(line)
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = write!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.8\"{dash} points=\"{}\"/>",
            path.join(" ")
        );
        for p in &path {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            let _ = write!(s, "<circle cx=\"{x}\" cy=\"{y}\" r=\"2.5\" fill=\"{c}\"/>");
        }
        let ly = PLOT_T + 10.0 + i as f64 * 16.0;
        let lx = PLOT_L + pw + 20.0;
        let _ = write!(
            s,
            "<line x1=\"{lx}\" y1=\"{ly}\" x2=\"{:.0}\" y2=\"{ly}\" stroke=\"{c}\" stroke-width=\"2\"{dash}/><text x=\"{:.0}\" y=\"{:.0}\" class=\"legend\">{}</text></g>",
            lx + 22.0,
            lx + 28.0,
            ly + 4.0,
            esc(&line.name)
        );
    }
    s.push_str("</svg>");
    s
}

/// Horizontal grid lines with their values on the left of the plot.
fn y_ticks(s: &mut String, axis: &Axis, pw: f64, py: &dyn Fn(f64) -> f64) {
    for v in axis.ticks() {
        let y = py(v);
        let _ = write!(
            s,
            "<line x1=\"{PLOT_L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" class=\"tick\">{}</text>",
            PLOT_L + pw,
            PLOT_L - 6.0,
            y + 4.0,
            esc(&axis.label(v))
        );
    }
}

/// A series of a [`BarChart`]: its legend entry and its fill.
pub struct BarSeries {
    pub name: String,
    pub colour: &'static str,
    /// Pale fill with a dashed outline, e.g. the paper's bar beside ours.
    pub faded: bool,
}

/// One bar of a [`BarChart`].
pub struct Bar {
    /// Index into [`BarChart::series`].
    pub series: usize,
    pub value: f64,
    /// An error bar from the first value to the second.
    pub range: Option<(f64, f64)>,
    /// A short text written above the bar (e.g. "116 B").
    pub note: Option<String>,
}

/// Bars side by side under one label on the horizontal axis.
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// A reference across the whole plot, with its own legend entry.
pub enum Mark {
    /// A dashed line at one value.
    Line {
        at: f64,
        label: String,
        colour: &'static str,
    },
    /// A shaded range of values.
    Band { from: f64, to: f64, label: String },
}

impl Mark {
    /// The values the axis has to reach.
    fn values(&self) -> Vec<f64> {
        match self {
            Mark::Line { at, .. } => vec![*at],
            Mark::Band { from, to, .. } => vec![*from, *to],
        }
    }
}

pub struct BarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<BarSeries>,
    pub groups: Vec<BarGroup>,
    pub marks: Vec<Mark>,
}

/// Roughly how wide one character of a tick label is, in pixels.
const CHAR_W: f64 = 6.2;
/// Group labels longer than this are shortened (the tables hold the full names).
const GROUP_LABEL_CHARS: usize = 30;

/// Vertical bars in labelled groups on a linear axis through zero, with
/// optional error bars and notes, reference lines or bands behind them, and a
/// legend to the right (series, then marks). Group labels that do not fit
/// under their group are slanted.
pub fn grouped_bars(chart: &BarChart) -> String {
    let (pw, ph) = (580.0, 320.0);
    let group_w = pw / chart.groups.len().max(1) as f64;
    let widest = chart
        .groups
        .iter()
        .map(|g| g.label.chars().count().min(GROUP_LABEL_CHARS))
        .max()
        .unwrap_or(0) as f64;
    let slanted = widest * CHAR_W > group_w;
    // A label slanted by 40° takes about sin(40°) of its length downwards.
    let labels_h = if slanted {
        widest * CHAR_W * 0.65 + 16.0
    } else {
        20.0
    };
    let legend_h = (chart.series.len() + chart.marks.len()) as f64 * 16.0 + 40.0;
    let h = (PLOT_T + ph + labels_h + 30.0).max(legend_h);
    let mut s = open_svg(W, h, &chart.title);
    let bars = || chart.groups.iter().flat_map(|g| g.bars.iter());
    if bars().next().is_none() {
        s.push_str("<text x=\"20\" y=\"40\">no data</text></svg>");
        return s;
    }
    let values = bars().flat_map(|b| {
        // Headroom above a bar for its note, written upwards: the note takes
        // a share f of the plot's height, so the axis must reach value / (1 - f).
        let note_px = b
            .note
            .as_ref()
            .map_or(0.0, |n| n.chars().count() as f64 * CHAR_W + 6.0);
        let top = b.value / (1.0 - (note_px / ph).min(0.6));
        [b.value, top]
            .into_iter()
            .chain(b.range.into_iter().flat_map(|(lo, hi)| [lo, hi]))
    });
    let marks = chart.marks.iter().flat_map(Mark::values);
    let Some(y_axis) = Axis::fit(Scale::Linear, values.chain(marks)) else {
        s.push_str("<text x=\"20\" y=\"40\">no data</text></svg>");
        return s;
    };
    let py = |y: f64| PLOT_T + ph - y_axis.fraction(y) * ph;
    axes_at(
        &mut s,
        pw,
        ph,
        &chart.x_label,
        &chart.y_label,
        PLOT_T + ph + labels_h + 22.0,
    );
    y_ticks(&mut s, &y_axis, pw, &py);
    for mark in &chart.marks {
        draw_mark(&mut s, mark, pw, &py);
    }
    let most = chart.groups.iter().map(|g| g.bars.len()).max().unwrap_or(1);
    let bar_w = (group_w * 0.8 / most as f64).min(40.0);
    for (gi, group) in chart.groups.iter().enumerate() {
        let gx = PLOT_L + gi as f64 * group_w;
        let first = gx + (group_w - group.bars.len() as f64 * bar_w) / 2.0;
        for (bi, bar) in group.bars.iter().enumerate() {
            let series = chart.series.get(bar.series);
            draw_bar(
                &mut s,
                bar,
                series,
                &group.label,
                first + bi as f64 * bar_w,
                bar_w,
                &py,
            );
        }
        group_label(
            &mut s,
            &group.label,
            gx + group_w / 2.0,
            PLOT_T + ph,
            slanted,
        );
    }
    bar_legend(&mut s, chart, PLOT_L + pw + 20.0);
    s.push_str("</svg>");
    s
}

fn draw_bar(
    s: &mut String,
    bar: &Bar,
    series: Option<&BarSeries>,
    group: &str,
    x: f64,
    w: f64,
    py: &dyn Fn(f64) -> f64,
) {
    if !bar.value.is_finite() {
        return;
    }
    let (fill, name) = series.map_or((bar_fill("#999", false), ""), |s| {
        (bar_fill(s.colour, s.faded), s.name.as_str())
    });
    let (top, bottom) = (py(bar.value.max(0.0)), py(bar.value.min(0.0)));
    let _ = write!(
        s,
        "<rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"{fill}><title>{}, {}: {}</title></rect>",
        x + 0.5,
        (w - 1.0).max(1.0),
        bottom - top,
        esc(name),
        esc(group),
        esc(&crate::html::num(bar.value))
    );
    let centre = x + w / 2.0;
    if let Some((lo, hi)) = bar
        .range
        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
    {
        let cap = (w * 0.25).max(2.0);
        let (y0, y1) = (py(lo), py(hi));
        let _ = write!(
            s,
            "<path d=\"M{:.1} {y0:.1}H{:.1}M{centre:.1} {y0:.1}V{y1:.1}M{:.1} {y1:.1}H{:.1}\" stroke=\"#222\" fill=\"none\" class=\"error-bar\"/>",
            centre - cap,
            centre + cap,
            centre - cap,
            centre + cap
        );
    }
    if let Some(note) = &bar.note {
        let y = py(bar.value.max(0.0)) - 3.0;
        let _ = write!(
            s,
            "<text transform=\"translate({:.1} {y:.1}) rotate(-90)\" class=\"point\">{}</text>",
            centre + 3.0,
            esc(note)
        );
    }
}

/// A bar's fill attributes; faded bars are pale with a dashed outline.
fn bar_fill(colour: &str, faded: bool) -> String {
    if faded {
        format!(
            " fill=\"{colour}\" fill-opacity=\"0.35\" stroke=\"{colour}\" stroke-dasharray=\"3 2\""
        )
    } else {
        format!(" fill=\"{colour}\"")
    }
}

fn draw_mark(s: &mut String, mark: &Mark, pw: f64, py: &dyn Fn(f64) -> f64) {
    if !mark.values().iter().all(|v| v.is_finite()) {
        return;
    }
    match mark {
        Mark::Line { at, label, colour } => {
            let y = py(*at);
            let _ = write!(
                s,
                "<line x1=\"{PLOT_L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" class=\"mark\"><title>{}</title></line>",
                PLOT_L + pw,
                esc(label)
            );
        }
        Mark::Band { from, to, label } => {
            let (y0, y1) = (py(from.max(*to)), py(from.min(*to)));
            let _ = write!(
                s,
                "<rect x=\"{PLOT_L}\" y=\"{y0:.1}\" width=\"{pw}\" height=\"{:.1}\" fill=\"#888\" fill-opacity=\"0.18\" class=\"mark\"><title>{}</title></rect>",
                y1 - y0,
                esc(label)
            );
        }
    }
}

/// A group's label centred under it, or slanted when it would not fit.
fn group_label(s: &mut String, label: &str, centre: f64, plot_bottom: f64, slanted: bool) {
    let text = esc(&short(label, GROUP_LABEL_CHARS));
    let _ = if slanted {
        write!(
            s,
            "<text transform=\"translate({centre:.1} {:.1}) rotate(-40)\" text-anchor=\"end\" class=\"tick\">{text}</text>",
            plot_bottom + 12.0
        )
    } else {
        write!(
            s,
            "<text x=\"{centre:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"tick\">{text}</text>",
            plot_bottom + 16.0
        )
    };
}

/// Legend to the right of the plot: a swatch per series, then each mark.
fn bar_legend(s: &mut String, chart: &BarChart, lx: f64) {
    let row_y = |i: usize| PLOT_T + 10.0 + i as f64 * 16.0;
    for (i, series) in chart.series.iter().enumerate() {
        let ly = row_y(i);
        let _ = write!(
            s,
            "<rect x=\"{lx}\" y=\"{:.0}\" width=\"16\" height=\"10\"{}/><text x=\"{:.0}\" y=\"{:.0}\" class=\"legend\">{}</text>",
            ly - 5.0,
            bar_fill(series.colour, series.faded),
            lx + 22.0,
            ly + 4.0,
            esc(&short(&series.name, 36))
        );
    }
    for (i, mark) in chart.marks.iter().enumerate() {
        let ly = row_y(chart.series.len() + i);
        let (swatch, label) = match mark {
            Mark::Line { label, colour, .. } => (
                format!(
                    "<line x1=\"{lx}\" y1=\"{ly}\" x2=\"{:.0}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
                    lx + 16.0
                ),
                label,
            ),
            Mark::Band { label, .. } => (
                format!(
                    "<rect x=\"{lx}\" y=\"{:.0}\" width=\"16\" height=\"10\" fill=\"#888\" fill-opacity=\"0.18\"/>",
                    ly - 5.0
                ),
                label,
            ),
        };
        let _ = write!(
            s,
            "{swatch}<text x=\"{:.0}\" y=\"{:.0}\" class=\"legend\">{}</text>",
            lx + 22.0,
            ly + 4.0,
            esc(&short(label, 36))
        );
    }
}

/// One bar made of stacked segments, e.g. CPU and radio energy.
pub struct StackedBar {
    pub label: String,
    pub dashed: bool,
    pub segments: Vec<f64>,
}

/// Horizontal stacked bars on a linear axis; `segment_names` give the legend.
pub fn stacked_bars(
    title: &str,
    unit: &str,
    segment_names: &[&str],
    bars: &[StackedBar],
) -> String {
    let label_w = 300.0;
    let pw = W - label_w - 40.0;
    let row = 20.0;
    let h = PLOT_T + 30.0 + bars.len() as f64 * row + 50.0;
    let mut s = open_svg(W, h, title);
    let max = bars
        .iter()
        .map(|b| b.segments.iter().sum::<f64>())
        .fold(0.0, f64::max);
    if max <= 0.0 {
        s.push_str("<text x=\"20\" y=\"40\">no data</text></svg>");
        return s;
    }
    let scale = pw / nice_ceiling(max);
    for (i, name) in segment_names.iter().enumerate() {
        let x = label_w + i as f64 * 160.0;
        let _ = write!(
            s,
            "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>",
            PLOT_T - 22.0,
            colour(i),
            x + 16.0,
            PLOT_T - 12.0,
            esc(name)
        );
    }
    for (i, bar) in bars.iter().enumerate() {
        let y = PLOT_T + 10.0 + i as f64 * row;
        let _ = write!(
            s,
            "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\" class=\"tick{}\">{}</text>",
            label_w - 8.0,
            y + 13.0,
            if bar.dashed { " insecure" } else { "" },
            esc(&short(&bar.label, 44))
        );
        let mut x = label_w;
        for (j, v) in bar.segments.iter().enumerate() {
            let w = v * scale;
            let _ = write!(
                s,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.0}\" fill=\"{}\"{}><title>{}: {} {}</title></rect>",
                row - 5.0,
                colour(j),
                if bar.dashed {
                    " fill-opacity=\"0.45\" stroke=\"#000\" stroke-dasharray=\"3 2\""
                } else {
                    ""
                },
                esc(segment_names.get(j).copied().unwrap_or("")),
                esc(&crate::html::num(*v)),
                esc(unit)
            );
            x += w;
        }
        let total: f64 = bar.segments.iter().sum();
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\">{}</text>",
            x + 4.0,
            y + 13.0,
            esc(&crate::html::num(total))
        );
    }
    let axis_y = PLOT_T + 10.0 + bars.len() as f64 * row + 14.0;
    let _ = write!(
        s,
        "<text x=\"{:.0}\" y=\"{axis_y:.0}\" class=\"axis\">{} (0 to {})</text></svg>",
        label_w,
        esc(unit),
        esc(&crate::html::num(nice_ceiling(max)))
    );
    s
}

pub struct ScatterPoint {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub on_frontier: bool,
    pub insecure: bool,
}

/// Scatter on linear axes fitted to the data (energies of schemes on one link
/// differ by a few percent, which a log axis would hide); frontier points are
/// joined and labelled, the others carry their name as a tooltip.
pub fn pareto(title: &str, x_label: &str, y_label: &str, points: &[ScatterPoint]) -> String {
    let (pw, ph) = (700.0, 380.0);
    let h = PLOT_T + ph + 60.0;
    let mut s = open_svg(W, h, title);
    if points.is_empty() {
        s.push_str("<text x=\"20\" y=\"40\">no data</text></svg>");
        return s;
    }
    let lo = points.iter().map(|p| p.x).fold(f64::MAX, f64::min);
    let hi = points.iter().map(|p| p.x).fold(f64::MIN, f64::max);
    let pad = if hi > lo {
        (hi - lo) * 0.08
    } else {
        lo.abs().max(1.0) * 0.01
    };
    let (x0, x1) = ((lo - pad).max(0.0), hi + pad);
    let ymax = nice_ceiling(points.iter().map(|p| p.y).fold(0.0, f64::max).max(1.0));
    let px = |x: f64| PLOT_L + (x - x0) / (x1 - x0) * pw;
    let py = |y: f64| PLOT_T + ph - y / ymax * ph;
    axes(&mut s, pw, ph, x_label, y_label);
    for k in 0..=4 {
        let v = x0 + (x1 - x0) * k as f64 / 4.0;
        let x = px(v);
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{PLOT_T}\" x2=\"{x:.1}\" y2=\"{:.1}\" class=\"grid\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"tick\">{}</text>",
            PLOT_T + ph,
            PLOT_T + ph + 16.0,
            esc(&crate::html::num(v))
        );
        let v = ymax * k as f64 / 4.0;
        let y = py(v);
        let _ = write!(
            s,
            "<line x1=\"{PLOT_L}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" class=\"tick\">{}</text>",
            PLOT_L + pw,
            PLOT_L - 6.0,
            y + 4.0,
            esc(&crate::html::num(v))
        );
    }
    let mut frontier: Vec<&ScatterPoint> = points.iter().filter(|p| p.on_frontier).collect();
    frontier.sort_by(|a, b| a.x.total_cmp(&b.x));
    let line: Vec<String> = frontier
        .iter()
        .map(|p| format!("{:.1},{:.1}", px(p.x), py(p.y)))
        .collect();
    let _ = write!(
        s,
        "<polyline fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"2\" points=\"{}\"/>",
        line.join(" ")
    );
    for p in points {
        let (x, y) = (px(p.x), py(p.y));
        let fill = if p.insecure {
            "#d62728"
        } else if p.on_frontier {
            "#2ca02c"
        } else {
            "#1f77b4"
        };
        let _ = write!(
            s,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{fill}\"><title>{}: {} bits, {}</title></circle>",
            esc(&p.label),
            p.y,
            esc(&crate::html::num(p.x)),
        );
    }
    for (i, p) in frontier.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"point\">{}</text>",
            px(p.x) + 6.0,
            py(p.y) - 6.0 - (i % 2) as f64 * 11.0,
            esc(&p.label)
        );
    }
    s.push_str("</svg>");
    s
}

/// Keeps chart labels inside their column; the full text is in the tables.
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max - 1).collect::<String>() + "…"
    }
}

/// Opens a chart with its title drawn visibly above the plot (and as the tooltip).
/// Every chart leaves `TITLE_H` pixels for it.
fn open_svg(w: f64, h: f64, title: &str) -> String {
    let h = h + TITLE_H;
    format!(
        "<svg class=\"chart\" viewBox=\"0 -{TITLE_H} {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" aria-label=\"{0}\"><title>{0}</title><text x=\"10\" y=\"-8\" class=\"chart-title\">{0}</text>",
        esc(title)
    )
}

const TITLE_H: f64 = 26.0;

fn axes(s: &mut String, pw: f64, ph: f64, x_label: &str, y_label: &str) {
    axes_at(s, pw, ph, x_label, y_label, PLOT_T + ph + 40.0);
}

/// The plot's frame and axis titles, the horizontal one at `x_title_y`.
fn axes_at(s: &mut String, pw: f64, ph: f64, x_label: &str, y_label: &str, x_title_y: f64) {
    let _ = write!(
        s,
        "<rect x=\"{PLOT_L}\" y=\"{PLOT_T}\" width=\"{pw}\" height=\"{ph}\" class=\"frame\"/>\
         <text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" class=\"axis\">{}</text>\
         <text transform=\"translate(16 {:.0}) rotate(-90)\" text-anchor=\"middle\" class=\"axis\">{}</text>",
        PLOT_L + pw / 2.0,
        x_title_y,
        esc(x_label),
        PLOT_T + ph / 2.0,
        esc(y_label)
    );
}

/// 1, 2 or 5 times a power of ten, at or above `v`.
pub fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|c| *c >= v * 0.999_999)
        .unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(3.2), 5.0);
        assert_eq!(nice_ceiling(0.011), 0.02);
        assert_eq!(nice_ceiling(100.0), 100.0);
    }

    #[test]
    fn labels_are_escaped() {
        let svg = log_log(&LineChart {
            title: "<t>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![Series {
                name: "a&b".into(),
                class: "k".into(),
                dashed: true,
                points: vec![(16.0, 1.0), (1024.0, 50.0)],
            }],
        });
        assert!(svg.contains("a&amp;b") && svg.contains("&lt;t&gt;"));
        assert!(!svg.contains("<t>"));
        assert!(svg.contains("stroke-dasharray"));
    }

    fn line(name: &str, stroke: Stroke, points: Vec<(f64, f64)>) -> Line {
        Line {
            name: name.into(),
            class: String::new(),
            colour: colour(0),
            stroke,
            points,
        }
    }

    /// Linear x from 0 to 10 and log y over 1..100: (5, 10) is the plot's centre.
    #[test]
    fn lines_place_points_on_mixed_axes() {
        let svg = lines(&Plot {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Log,
            lines: vec![
                line(
                    "a",
                    Stroke::Solid,
                    vec![(0.0, 1.0), (5.0, 10.0), (10.0, 100.0)],
                ),
                // y = 0 cannot be drawn on a log axis: that point is left out.
                line("b", Stroke::Dotted, vec![(1.0, 0.0), (2.0, 2.0)]),
            ],
        });
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(
            svg.contains("points=\"70.0,410.0 350.0,220.0 630.0,30.0\""),
            "{svg}"
        );
        assert!(svg.contains("stroke-dasharray=\"2 3\""));
        assert_eq!(svg.matches("<circle").count(), 4);
    }

    #[test]
    fn linear_axes_run_through_zero_in_round_steps() {
        let axis = Axis::fit(Scale::Linear, [12.0, 255.0]).unwrap();
        assert_eq!(
            axis.ticks(),
            vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0]
        );
        let axis = Axis::fit(Scale::Linear, [-3.0, 9.0]).unwrap();
        assert_eq!(
            axis.ticks(),
            vec![-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert!(Axis::fit(Scale::Log, [0.0, -1.0]).is_none());
        let axis = Axis::fit(Scale::Linear, [0.0, 0.5]).unwrap();
        assert_eq!(axis.label(0.1 * 3.0), "0.3");
    }

    fn bar(series: usize, value: f64) -> Bar {
        Bar {
            series,
            value,
            range: None,
            note: None,
        }
    }

    fn chart(groups: Vec<BarGroup>, marks: Vec<Mark>) -> BarChart {
        BarChart {
            title: "bars".into(),
            x_label: "mode".into(),
            y_label: "%".into(),
            series: vec![
                BarSeries {
                    name: "paper".into(),
                    colour: colour(0),
                    faded: true,
                },
                BarSeries {
                    name: "ours".into(),
                    colour: colour(0),
                    faded: false,
                },
            ],
            groups,
            marks,
        }
    }

    #[test]
    fn grouped_bars_draw_every_bar_mark_and_legend_entry() {
        let groups = vec![
            BarGroup {
                label: "a<b".into(),
                bars: vec![bar(0, 100.0), bar(1, 80.0)],
            },
            BarGroup {
                label: "CTR".into(),
                bars: vec![
                    bar(0, 50.0),
                    Bar {
                        range: Some((20.0, 40.0)),
                        note: Some("30 B".into()),
                        ..bar(1, 30.0)
                    },
                ],
            },
        ];
        let marks = vec![
            Mark::Line {
                at: 100.0,
                label: "scheme 1".into(),
                colour: "#444",
            },
            Mark::Band {
                from: 75.0,
                to: 100.0,
                label: "paper's range".into(),
            },
        ];
        let svg = grouped_bars(&chart(groups, marks));
        // Four bars with a tooltip each, plus the band.
        assert_eq!(svg.matches("</rect>").count(), 5, "{svg}");
        assert_eq!(svg.matches("class=\"error-bar\"").count(), 1);
        assert!(svg.contains(">30 B</text>"));
        assert!(svg.contains("a&lt;b") && !svg.contains("a<b"));
        for legend in ["paper", "ours", "scheme 1", "paper&#39;s range"] {
            assert!(
                svg.contains(&format!("class=\"legend\">{legend}</text>")),
                "{legend}"
            );
        }
        // The paper's bars are faded, ours are not.
        assert_eq!(svg.matches("fill-opacity=\"0.35\"").count(), 3);
        // The axis runs from 0 to 100 in steps of 20: the 100 % bar fills the
        // plot, 40 px wide at most less a pixel of gap.
        assert!(svg.contains(">20</text>") && !svg.contains(">120</text>"));
        assert!(!svg.contains(">20.0</text>"));
        assert!(
            svg.contains("y=\"30.0\" width=\"39.0\" height=\"320.0\""),
            "{svg}"
        );
    }

    #[test]
    fn grouped_bars_without_numbers_say_so_or_leave_them_out() {
        let svg = grouped_bars(&chart(vec![], vec![]));
        assert!(svg.contains("no data") && svg.ends_with("</svg>"));
        // A value that is not a number is left out, never written as "NaN".
        let groups = vec![BarGroup {
            label: "x".into(),
            bars: vec![bar(1, f64::NAN), bar(1, 2.0)],
        }];
        let marks = vec![Mark::Line {
            at: f64::INFINITY,
            label: "inf".into(),
            colour: "#000",
        }];
        let svg = grouped_bars(&chart(groups, marks));
        assert!(!svg.contains("NaN") && !svg.contains("inf\""));
        assert_eq!(svg.matches("</rect>").count(), 1);
    }
}
