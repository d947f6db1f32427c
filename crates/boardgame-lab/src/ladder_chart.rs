//! The chart of a rating ladder ([`boardgame_sim::ladder`]): every agent's
//! Elo with its 95% interval, one colour per player count.

use std::path::Path;

use boardgame_sim::ladder::{LadderResults, ratings};
use plotters::prelude::*;

use crate::LabError;
use crate::report::color;

/// Draws the ladder's ratings as an SVG file at `path`: the agents along
/// the x axis (in the ladder's order), Elo up, one series per player count.
///
/// # Errors
/// [`LabError::Write`] when the file cannot be written or the chart drawn.
pub fn ladder_chart(r: &LadderResults, path: &Path) -> Result<(), LabError> {
    draw(r, path).map_err(|e| LabError::Write { path: path.display().to_string(), reason: e.to_string() })
}

fn draw(r: &LadderResults, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let rows: Vec<_> = r.counts.iter().map(|c| (c.players, ratings(c))).collect();
    let (lo, hi) = rows
        .iter()
        .flat_map(|(_, rs)| rs.iter())
        .filter(|x| x.elo_interval.iter().all(|v| v.is_finite()))
        .fold((0.0f64, 0.0f64), |(a, b), x| (a.min(x.elo_interval[0]), b.max(x.elo_interval[1])));
    let span = (hi - lo).max(10.0);
    let k = r.agents.len();
    let width = (160 + 110 * k as u32).clamp(640, 1800);
    let root = SVGBackend::new(path, (width, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{}: ratings by player count (Elo, mean 0, 95% intervals)", r.engine), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5f64..(k as f64 - 0.5), (lo - 0.08 * span)..(hi + 0.08 * span))?;
    let agents = r.agents.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .y_labels(10)
        .x_labels(k + 1)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 0.01 && i >= 0.0 {
                agents.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| format!("{y:+.0}"))
        .y_desc("Elo")
        .label_style(("sans-serif", 12))
        .draw()?;
    let series = rows.len().max(1) as f64;
    for (s, (players, rs)) in rows.iter().enumerate() {
        let color = color(s);
        let dx = (s as f64 - (series - 1.0) / 2.0) * 0.5 / series;
        let points: Vec<(f64, [f64; 3])> = rs
            .iter()
            .enumerate()
            .filter(|(_, x)| x.elo_interval.iter().all(|v| v.is_finite()))
            .map(|(i, x)| (i as f64 + dx, [x.elo_interval[0], x.elo, x.elo_interval[1]]))
            .collect();
        chart
            .draw_series(points.iter().map(|&(x, [a, m, b])| ErrorBar::new_vertical(x, a, m, b, color.filled(), 8)))?
            .label(format!("{players} players"))
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
        chart.draw_series(points.iter().map(|&(x, [_, m, _])| Circle::new((x, m), 4, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 12))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    root.present()?;
    Ok(())
}
