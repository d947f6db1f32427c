//! The learning curve as an SVG chart: the learner's share against each
//! opponent (with its 95% interval as a band) over training time, and the
//! fair share as a dashed line.

use std::fmt::Write;

use crate::pipeline::CurvePoint;

const W: f64 = 640.0;
const H: f64 = 360.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 44.0;
const COLOURS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/// An SVG chart of `curve` titled `title`: one line per opponent, the
/// learner's share (y, 0–100%) against the training seconds (x).
pub fn chart_svg(title: &str, curve: &[CurvePoint]) -> String {
    let mut s = String::new();
    let t_max = curve.iter().map(|p| p.seconds).fold(1.0, f64::max);
    let x = |t: f64| LEFT + (W - LEFT - RIGHT) * t / t_max;
    let y = |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - v.clamp(0.0, 1.0));
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = write!(s, r#"<text x="{}" y="18" font-size="14">{}</text>"#, LEFT, escape(title));
    for k in 0..=4 {
        let v = f64::from(k) * 0.25;
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{y0}" y2="{y0}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}%</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            y(v) + 4.0,
            k * 25,
            y0 = y(v)
        );
    }
    for k in 0..=4 {
        let t = t_max * f64::from(k) / 4.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            x(t),
            H - BOTTOM + 16.0,
            if t_max >= 600.0 { format!("{:.0} min", t / 60.0) } else { format!("{t:.0} s") }
        );
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">training time (one core)</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 8.0
    );
    let mut opponents: Vec<&str> = Vec::new();
    for p in curve {
        for v in &p.versus {
            if !opponents.contains(&v.opponent.as_str()) {
                opponents.push(&v.opponent);
            }
        }
    }
    if let Some(fair) = curve.first().and_then(|p| p.versus.first()).map(|v| v.fair) {
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{f}" y2="{f}" stroke="#555" stroke-dasharray="4 3"/><text x="{}" y="{}">fair {:.0}%</text>"##,
            W - RIGHT,
            W - RIGHT + 6.0,
            y(fair) + 4.0,
            fair * 100.0,
            f = y(fair)
        );
    }
    for (k, opp) in opponents.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let pts: Vec<(f64, f64, f64, f64)> = curve
            .iter()
            .filter_map(|p| p.versus.iter().find(|v| v.opponent == *opp).map(|v| (p.seconds, v.share, v.low, v.high)))
            .collect();
        let band: Vec<String> = pts
            .iter()
            .map(|&(t, _, _, hi)| format!("{:.1},{:.1}", x(t), y(hi)))
            .chain(pts.iter().rev().map(|&(t, _, lo, _)| format!("{:.1},{:.1}", x(t), y(lo))))
            .collect();
        let _ = write!(s, r#"<polygon points="{}" fill="{colour}" fill-opacity="0.15"/>"#, band.join(" "));
        let line: Vec<String> = pts.iter().map(|&(t, v, _, _)| format!("{:.1},{:.1}", x(t), y(v))).collect();
        let _ = write!(s, r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#, line.join(" "));
        for &(t, v, _, _) in &pts {
            let _ = write!(s, r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#, x(t), y(v));
        }
        let ly = TOP + 16.0 * k as f64 + 10.0;
        let _ = write!(
            s,
            r#"<line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2"/><text x="{}" y="{}">vs {}</text>"#,
            W - RIGHT + 30.0,
            W - RIGHT + 48.0,
            W - RIGHT + 52.0,
            ly + 4.0,
            escape(opp)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
