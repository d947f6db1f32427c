//! The report: a markdown summary and SVG charts drawn with `plotters`.
//!
//! Everything written depends on the [`LabResults`] alone (no clock, no
//! machine), so the same seeds give byte-identical files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::element::ErrorBarOrientV;
use plotters::prelude::*;
use serde_json::Value;

use crate::LabError;
use crate::run::{CellResult, LabResults};
use crate::stats::Estimate;
use crate::sweep::{Sweep, value_text};

/// The markdown summary's file name.
pub const REPORT_FILE: &str = "report.md";
/// The mergeable results' file name.
pub const RESULTS_FILE: &str = "results.json";
/// The seat chart shows at most this many cells (the first ones).
pub const MAX_SEAT_PANELS: usize = 12;
/// A sweep chart draws at most this many lines (the first ones).
pub const MAX_SERIES: usize = 10;

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

fn write_err(path: &Path, e: impl std::fmt::Display) -> LabError {
    LabError::Write { path: path.display().to_string(), reason: e.to_string() }
}

/// A file name made of the path's letters and digits (`deck.scout` →
/// `deck-scout`).
pub fn slug(path: &str) -> String {
    path.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
}

/// Writes the report of `results` into `dir` (created if missing):
/// `report.md`, `results.json` and the charts. Returns the files written,
/// in order.
///
/// # Errors
/// [`LabError::Write`] when a file cannot be written or a chart drawn.
pub fn write_report(results: &LabResults, dir: &Path) -> Result<Vec<PathBuf>, LabError> {
    std::fs::create_dir_all(dir).map_err(|e| write_err(dir, e))?;
    let mut files = Vec::new();
    let mut charts: Vec<(String, String)> = Vec::new(); // (file, what)

    let seats = dir.join("seats.svg");
    seat_chart(results, &seats).map_err(|e| write_err(&seats, e))?;
    charts.push(("seats.svg".into(), "seat win shares".into()));
    let lead = dir.join("lead.svg");
    lead_chart(results, &lead).map_err(|e| write_err(&lead, e))?;
    charts.push(("lead.svg".into(), format!("{} advantage", results.lead_role)));
    for sweep in results.sweeps.iter().filter(|s| s.values.len() > 1) {
        let name = format!("sweep-{}.svg", slug(&sweep.path));
        let path = dir.join(&name);
        sweep_chart(results, sweep, &path).map_err(|e| write_err(&path, e))?;
        charts.push((name, format!("win shares against {}", sweep.path)));
    }
    let length = dir.join("length.svg");
    length_chart(results, &length).map_err(|e| write_err(&length, e))?;
    charts.push(("length.svg".into(), "game length".into()));
    if results.worth.as_ref().is_some_and(|w| !w.treatments.is_empty()) {
        let worth = dir.join("worth.svg");
        worth_chart(results, &worth).map_err(|e| write_err(&worth, e))?;
        charts.push(("worth.svg".into(), "card worth".into()));
    }
    for (name, _) in &charts {
        files.push(dir.join(name));
    }

    let md = dir.join(REPORT_FILE);
    std::fs::write(&md, markdown(results, "")).map_err(|e| write_err(&md, e))?;
    let json = dir.join(RESULTS_FILE);
    let text = serde_json::to_string_pretty(results).map_err(|e| write_err(&json, e))?;
    std::fs::write(&json, text + "\n").map_err(|e| write_err(&json, e))?;
    files.insert(0, json);
    files.insert(0, md);
    Ok(files)
}

fn short_label(c: &CellResult) -> String {
    if c.settings.is_empty() {
        return "defaults".into();
    }
    c.settings.iter().map(|s| value_text(&s.value)).collect::<Vec<_>>().join("/")
}

fn agents_text(r: &LabResults) -> String {
    let mut distinct: Vec<&String> = Vec::new();
    for a in &r.agents {
        if !distinct.contains(&a) {
            distinct.push(a);
        }
    }
    match distinct.as_slice() {
        [one] => format!("`{one}` in every seat (self-play)"),
        _ => format!(
            "{} (entrants rotate through the seats from game to game)",
            r.agents.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn ranges_text(r: &[[u64; 2]]) -> String {
    if r.is_empty() {
        return "none".into();
    }
    r.iter().map(|[a, b]| format!("{a}..{b}")).collect::<Vec<_>>().join(", ")
}

/// The markdown summary of `results`; `image_prefix` is put before every
/// chart's file name (`""` beside the charts, `img/balance/x-` elsewhere).
pub fn markdown(r: &LabResults, image_prefix: &str) -> String {
    let mut s = String::new();
    let role = &r.lead_role;
    let _ = writeln!(s, "# Balance: {} (rules version {})\n", r.engine, r.rules_version);
    let _ = writeln!(s, "- agents: {}", agents_text(r));
    let _ = writeln!(
        s,
        "- games per cell: {} (seeds {}; every cell plays the same seeds)",
        r.games_per_cell(),
        ranges_text(&r.seeds)
    );
    let sweeps: Vec<String> = r.sweeps.iter().map(|x| format!("`{x}`")).collect();
    let _ = writeln!(
        s,
        "- sweeps: {}; {} cell{}",
        if sweeps.is_empty() { "none (the default configuration)".into() } else { sweeps.join(", ") },
        r.cells.len(),
        if r.cells.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "- every figure carries its 95% interval: win shares by the Wilson score interval (a draw among k \
         seats counts 1/k; conservative with draws), differences of two seats' shares in the same games and \
         mean lengths by the normal approximation\n"
    );

    let _ = writeln!(s, "## Seat win shares\n");
    let _ = writeln!(s, "Seats in the order they lead (position 1 is the {role}). A fair game gives every seat 1/n.\n");
    let _ = writeln!(s, "![seat win shares]({image_prefix}seats.svg)\n");
    for c in &r.cells {
        let _ = writeln!(
            s,
            "**{}** ({} players, {} games, fair share {:.1}%)\n",
            c.label(),
            c.players(),
            c.games,
            100.0 * c.fair()
        );
        let _ = writeln!(s, "| position | seat | win share [95%] | share − 1/n | mean score |");
        let _ = writeln!(s, "|---|---|---|---|---|");
        for (k, &seat) in c.order.iter().enumerate() {
            let e = c.position_share(k);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.2} |",
                k + 1,
                seat,
                e.pct(),
                e.shifted(-c.fair()).pp(),
                c.seats[seat].mean_score()
            );
        }
        let _ = writeln!(s);
        if r.agents.iter().any(|a| *a != r.agents[0]) {
            let _ = writeln!(s, "| agent | win share [95%] | mean score |");
            let _ = writeln!(s, "|---|---|---|");
            for (i, a) in c.agents.iter().enumerate() {
                let e = crate::stats::wilson(a.win_share(), a.games, crate::stats::Z95);
                let _ = writeln!(s, "| {i}: {} | {} | {:.2} |", a.name, e.pct(), a.mean_score());
            }
            let _ = writeln!(s);
        }
    }

    let _ = writeln!(s, "## {} advantage\n", capitalize(role));
    let _ = writeln!(s, "![{role} advantage]({image_prefix}lead.svg)\n");
    let _ = writeln!(s, "| cell | players | {role}'s share [95%] | share − 1/n | {role} − last seat | imbalance? |");
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for c in &r.cells {
        let adv = c.lead_advantage();
        let fl = c.first_minus_last();
        let flag =
            if adv.excludes(0.0) { if adv.value > 0.0 { "yes: favoured" } else { "yes: handicapped" } } else { "no" };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            c.label(),
            c.players(),
            c.position_share(0).pct(),
            adv.pp(),
            fl.pp(),
            flag
        );
    }
    let _ = writeln!(s);

    for sweep in r.sweeps.iter().filter(|x| x.values.len() > 1) {
        let _ = writeln!(s, "## Against `{}`\n", sweep.path);
        let _ = writeln!(s, "![win shares against {}]({image_prefix}sweep-{}.svg)\n", sweep.path, slug(&sweep.path));
        let _ = writeln!(
            s,
            "| {} | other settings | {role}'s share − 1/n | last seat's share − 1/n | draws | mean length |",
            sweep.path
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for (key, cells) in groups(r, sweep) {
            for (v, c) in cells {
                let last = c.position_share(c.order.len() - 1).shifted(-c.fair());
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    value_text(&v),
                    if key.is_empty() { "—".to_string() } else { key.clone() },
                    c.lead_advantage().pp(),
                    last.pp(),
                    c.draw_share().pct(),
                    c.length().num(2)
                );
            }
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## Game length\n");
    let _ = writeln!(s, "Actions per game, chance draws included.\n");
    let _ = writeln!(s, "![game length]({image_prefix}length.svg)\n");
    let _ = writeln!(s, "| cell | mean length [95%] | shortest | longest | draws [95%] |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for c in &r.cells {
        let lo = c.lengths.keys().next().copied().unwrap_or(0);
        let hi = c.lengths.keys().next_back().copied().unwrap_or(0);
        let _ = writeln!(s, "| {} | {} | {lo} | {hi} | {} |", c.label(), c.length().num(2), c.draw_share().pct());
    }
    let _ = writeln!(s);

    if let Some(w) = &r.worth {
        let _ = writeln!(s, "## Card worth\n");
        if w.treatments.is_empty() {
            let _ = writeln!(s, "{} has no card-worth treatment: nothing was measured.\n", r.engine);
            return s;
        }
        let method = if w.method.is_empty() { "with one seat's chance forced" } else { w.method.as_str() };
        let _ = writeln!(
            s,
            "Each seed ({}) is played twice: as it falls, and {method}. The effect is the mean paired \
             difference of that seat's win share (forced − as dealt): the worth of a card of that kind \
             in place of a random card of the deck. Configuration: `{}`.\n",
            ranges_text(&r.worth_seeds),
            compact(&w.config)
        );
        let _ = writeln!(s, "![card worth]({image_prefix}worth.svg)\n");
        let _ = writeln!(s, "| kind | pairs | seat's share as dealt [95%] | with the card [95%] | effect [95%] |");
        let _ = writeln!(s, "|---|---|---|---|---|");
        for t in &w.treatments {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                t.name,
                t.games,
                t.base().pct(),
                t.treated().pct(),
                t.effect().pp()
            );
        }
        let _ = writeln!(s);
    }
    s
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// The cells grouped by the settings of every sweep but `sweep`, each
/// group in the order of `sweep`'s values.
fn groups<'a>(r: &'a LabResults, sweep: &Sweep) -> Vec<(String, Vec<(Value, &'a CellResult)>)> {
    let mut out: Vec<(String, Vec<(Value, &CellResult)>)> = Vec::new();
    for c in &r.cells {
        let Some(v) = c.settings.iter().find(|x| x.path == sweep.path).map(|x| x.value.clone()) else {
            continue;
        };
        let key = c
            .settings
            .iter()
            .filter(|x| x.path != sweep.path)
            .map(|x| format!("{}={}", x.path, value_text(&x.value)))
            .collect::<Vec<_>>()
            .join(", ");
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push((v, c)),
            None => out.push((key, vec![(v, c)])),
        }
    }
    out
}

const SIZE: (u32, u32) = (900, 560);

/// Ten strong, distinguishable colours (the common "category10" set).
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The `i`-th colour of the lab's charts (they repeat after ten).
pub(crate) fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}
const FONT: &str = "sans-serif";

fn padded(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let span = (hi - lo).max(1e-3);
    (lo - 0.08 * span)..(hi + 0.08 * span)
}

fn bar(x: i32, e: Estimate, scale: f64, color: RGBColor) -> ErrorBar<i32, f64, ErrorBarOrientV<i32, f64>> {
    ErrorBar::new_vertical(x, e.lo * scale, e.value * scale, e.hi * scale, color.filled(), 8)
}

fn seat_chart(r: &LabResults, path: &Path) -> DrawResult<()> {
    let root = SVGBackend::new(path, (1000, 720)).into_drawing_area();
    root.fill(&WHITE)?;
    let shown: Vec<&CellResult> = r.cells.iter().take(MAX_SEAT_PANELS).collect();
    let title = if r.cells.len() > shown.len() {
        format!("{}: seat win shares, first {} of {} cells (95% intervals)", r.engine, shown.len(), r.cells.len())
    } else {
        format!("{}: seat win shares by position in the turn order (95% intervals)", r.engine)
    };
    let area = root.titled(&title, (FONT, 20))?;
    let n = shown.len().max(1);
    let cols = (1..=n).find(|c| c * c >= n).unwrap_or(1);
    let rows = n.div_ceil(cols);
    let ymax = shown.iter().flat_map(|c| (0..c.players()).map(|k| c.position_share(k).hi)).fold(0.0f64, f64::max);
    let ymax = (ymax * 100.0 * 1.1).max(5.0);
    for (panel, c) in area.split_evenly((rows, cols)).iter().zip(&shown) {
        draw_seat_panel(panel, c, ymax)?;
    }
    root.present()?;
    Ok(())
}

fn draw_seat_panel(panel: &DrawingArea<SVGBackend<'_>, Shift>, c: &CellResult, ymax: f64) -> DrawResult<()> {
    let n = c.players() as i32;
    let mut chart = ChartBuilder::on(panel)
        .caption(c.label(), (FONT, 14))
        .margin(6)
        .x_label_area_size(24)
        .y_label_area_size(36)
        .build_cartesian_2d(-1..n, 0f64..ymax)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels((n + 2) as usize)
        .x_label_formatter(&|x| if (0..n).contains(x) { (x + 1).to_string() } else { String::new() })
        .y_labels(5)
        .y_label_formatter(&|y| format!("{y:.0}%"))
        .label_style((FONT, 11))
        .draw()?;
    let fair = 100.0 * c.fair();
    chart.draw_series(LineSeries::new(vec![(-1, fair), (n, fair)], BLACK.mix(0.4).stroke_width(1)))?;
    let rgb = color(0);
    chart.draw_series((0..n).map(|k| bar(k, c.position_share(k as usize), 100.0, rgb)))?;
    chart.draw_series((0..n).map(|k| Circle::new((k, 100.0 * c.position_share(k as usize).value), 3, rgb.filled())))?;
    Ok(())
}

fn cell_axis_chart(
    r: &LabResults,
    path: &Path,
    title: &str,
    y_desc: &str,
    values: &[Estimate],
    reference: Option<&[f64]>,
    unit: (&'static str, f64),
) -> DrawResult<()> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let n = values.len() as i32;
    let scale = unit.1;
    let lo = values.iter().map(|e| e.lo).chain(reference.unwrap_or(&[]).iter().copied()).fold(f64::INFINITY, f64::min);
    let hi =
        values.iter().map(|e| e.hi).chain(reference.unwrap_or(&[]).iter().copied()).fold(f64::NEG_INFINITY, f64::max);
    let labels: Vec<String> = r.cells.iter().map(short_label).collect();
    let x_desc = if r.sweeps.is_empty() {
        "configuration".to_string()
    } else {
        r.sweeps.iter().map(|s| s.path.clone()).collect::<Vec<_>>().join(" / ")
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(-1..n, padded(lo * scale, hi * scale))?;
    let unit_text = unit.0;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels((n as usize + 2).min(24))
        .x_label_formatter(&|x| usize::try_from(*x).ok().and_then(|i| labels.get(i).cloned()).unwrap_or_default())
        .y_label_formatter(&|y| format!("{y:.1}{unit_text}"))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style((FONT, 12))
        .draw()?;
    let rgb = color(0);
    if let Some(reference) = reference {
        // A short level mark per cell: cells may differ in their fair share.
        let mark = BLACK.mix(0.6).stroke_width(2);
        chart
            .draw_series(reference.iter().enumerate().map(|(i, &f)| {
                EmptyElement::at((i as i32, f * scale)) + PathElement::new(vec![(-14, 0), (14, 0)], mark)
            }))?
            .label("fair share 1/n")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], mark));
    }
    chart
        .draw_series(values.iter().enumerate().map(|(i, &e)| bar(i as i32, e, scale, rgb)))?
        .label("estimate, 95% interval")
        .legend(move |(x, y)| Circle::new((x + 8, y), 3, rgb.filled()));
    chart.draw_series(
        values.iter().enumerate().map(|(i, e)| Circle::new((i as i32, e.value * scale), 3, rgb.filled())),
    )?;
    if reference.is_some() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .draw()?;
    }
    root.present()?;
    Ok(())
}

fn lead_chart(r: &LabResults, path: &Path) -> DrawResult<()> {
    let values: Vec<Estimate> = r.cells.iter().map(|c| c.position_share(0)).collect();
    let fair: Vec<f64> = r.cells.iter().map(CellResult::fair).collect();
    let title = format!("{}: win share of the {} (95% intervals)", r.engine, r.lead_role);
    cell_axis_chart(r, path, &title, "win share", &values, Some(&fair), ("%", 100.0))
}

fn length_chart(r: &LabResults, path: &Path) -> DrawResult<()> {
    let values: Vec<Estimate> = r.cells.iter().map(CellResult::length).collect();
    let title = format!("{}: mean game length (95% intervals)", r.engine);
    cell_axis_chart(r, path, &title, "actions per game (chance included)", &values, None, ("", 1.0))
}

fn sweep_chart(r: &LabResults, sweep: &Sweep, path: &Path) -> DrawResult<()> {
    let numeric = sweep.values.iter().all(Value::is_number);
    let x_of = |v: &Value| -> f64 {
        if numeric { v.as_f64().unwrap_or(0.0) } else { sweep.values.iter().position(|w| w == v).unwrap_or(0) as f64 }
    };
    let xs: Vec<f64> = sweep.values.iter().map(x_of).collect();
    let (xmin, xmax) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    let groups = groups(r, sweep);
    // One sweep: the leading and the last seat. Several: the leading seat,
    // one line per setting of the other sweeps.
    let series: Vec<(String, Vec<(f64, Estimate)>)> = if groups.len() == 1 {
        let cells = &groups[0].1;
        let last = |c: &CellResult| c.position_share(c.order.len() - 1).shifted(-c.fair());
        vec![
            (r.lead_role.clone(), cells.iter().map(|(v, c)| (x_of(v), c.lead_advantage())).collect()),
            ("last in the turn order".into(), cells.iter().map(|(v, c)| (x_of(v), last(c))).collect()),
        ]
    } else {
        groups
            .iter()
            .take(MAX_SERIES)
            .map(|(key, cells)| (key.clone(), cells.iter().map(|(v, c)| (x_of(v), c.lead_advantage())).collect()))
            .collect()
    };
    let (lo, hi) = series
        .iter()
        .flat_map(|(_, points)| points.iter().map(|(_, e)| *e))
        .fold((0.0f64, 0.0f64), |(a, b), e| (a.min(e.lo), b.max(e.hi)));
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut title = if groups.len() == 1 {
        format!("{}: win share − 1/n against {}", r.engine, sweep.path)
    } else {
        format!("{}: {}'s win share − 1/n against {}", r.engine, r.lead_role, sweep.path)
    };
    if groups.len() > MAX_SERIES {
        title.push_str(&format!(" (first {MAX_SERIES} of {} lines)", groups.len()));
    }
    let span = (xmax - xmin).max(1.0);
    let values = sweep.values.clone();
    // Integer values get a label at every integer when there are few.
    let integers = numeric && sweep.values.iter().all(|v| v.is_i64() || v.is_u64());
    let x_label_count = if integers && span <= 30.0 { span as usize + 1 } else { values.len().clamp(2, 20) };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d((xmin - 0.05 * span)..(xmax + 0.05 * span), padded(100.0 * lo, 100.0 * hi))?;
    chart
        .configure_mesh()
        .x_labels(x_label_count)
        .x_label_formatter(&|x| {
            if numeric {
                if (x - x.round()).abs() < 1e-9 { format!("{}", x.round()) } else { format!("{x:.2}") }
            } else {
                let i = x.round();
                if (x - i).abs() < 1e-9 && i >= 0.0 {
                    values.get(i as usize).map(value_text).unwrap_or_default()
                } else {
                    String::new()
                }
            }
        })
        .y_label_formatter(&|y| format!("{y:+.1} pp"))
        .x_desc(sweep.path.clone())
        .y_desc("win share − 1/n")
        .label_style((FONT, 12))
        .draw()?;
    chart.draw_series(LineSeries::new(
        vec![(xmin - 0.05 * span, 0.0), (xmax + 0.05 * span, 0.0)],
        BLACK.mix(0.4).stroke_width(1),
    ))?;
    let offset = 0.012 * span;
    let mid = (series.len() as f64 - 1.0) / 2.0;
    for (g, (label, points)) in series.iter().enumerate() {
        let rgb = color(g);
        let dx = (g as f64 - mid) * offset;
        let label = if label.is_empty() { "all cells".to_string() } else { label.clone() };
        chart
            .draw_series(LineSeries::new(points.iter().map(|&(x, e)| (x + dx, 100.0 * e.value)), rgb.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], rgb.stroke_width(2)));
        chart.draw_series(points.iter().map(|&(x, e)| {
            ErrorBar::new_vertical(x + dx, 100.0 * e.lo, 100.0 * e.value, 100.0 * e.hi, rgb.filled(), 6)
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 12))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    root.present()?;
    Ok(())
}

fn worth_chart(r: &LabResults, path: &Path) -> DrawResult<()> {
    let Some(w) = &r.worth else { return Ok(()) };
    let effects: Vec<Estimate> = w.treatments.iter().map(|t| t.effect()).collect();
    let names: Vec<String> = w.treatments.iter().map(|t| t.name.clone()).collect();
    let n = effects.len() as i32;
    let lo = effects.iter().map(|e| e.lo).fold(0.0f64, f64::min);
    let hi = effects.iter().map(|e| e.hi).fold(0.0f64, f64::max);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: worth of one card of a kind in place of a random one (95% intervals)", r.engine),
            (FONT, 18),
        )
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(-1..n, padded(100.0 * lo, 100.0 * hi))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n as usize + 2)
        .x_label_formatter(&|x| usize::try_from(*x).ok().and_then(|i| names.get(i).cloned()).unwrap_or_default())
        .y_label_formatter(&|y| format!("{y:+.1} pp"))
        .x_desc("kind dealt")
        .y_desc("change of the seat's win share")
        .label_style((FONT, 12))
        .draw()?;
    chart.draw_series(LineSeries::new(vec![(-1, 0.0), (n, 0.0)], BLACK.mix(0.4).stroke_width(1)))?;
    let rgb = color(1);
    chart.draw_series(effects.iter().enumerate().map(|(i, &e)| bar(i as i32, e, 100.0, rgb)))?;
    chart.draw_series(
        effects.iter().enumerate().map(|(i, e)| Circle::new((i as i32, 100.0 * e.value), 4, rgb.filled())),
    )?;
    root.present()?;
    Ok(())
}
