//! Caravan's goods colours (assets/caravan.js) keep apart from the seats'
//! colours (assets/app.js) and from one another, for normal eyes and for
//! colour-blind ones: every colour is simulated for protanopia,
//! deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009,
//! severity 1, on linear RGB) and the distances are CIEDE2000 colour
//! differences in CIELAB (D65). A good also carries its name and its shape
//! (a diamond for a rare kind, a square for a common one); the browser test
//! checks that the board draws them so.

/// A seat's colour and a good's colour differ at least this much (ΔE00) in
/// every vision: far more than a just-noticeable difference (about 1).
const GOODS_FROM_SEATS: f64 = 20.0;
/// Two goods' colours differ at least this much (their names and shapes
/// tell them apart as well).
const GOODS_FROM_GOODS: f64 = 10.0;
/// Caravan seats 2 to 4 players (C-1.1): the first four seat colours.
const CARAVAN_SEATS: usize = 4;

const KINDS: [&str; 8] = ["R1", "R2", "R3", "R4", "C1", "C2", "C3", "C4"];

type Matrix = [[f64; 3]; 3];

/// The visions checked: none simulated, then the three dichromacies.
const VISIONS: [(&str, Option<Matrix>); 4] = [
    ("normal", None),
    (
        "protanopia",
        Some([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]),
    ),
    (
        "deuteranopia",
        Some([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]),
    ),
    (
        "tritanopia",
        Some([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]),
    ),
];

fn asset(name: &str) -> String {
    std::fs::read_to_string(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The `#rrggbb` colours written between `start` and the next `end`.
fn hex_colours(text: &str, start: &str, end: char) -> Vec<String> {
    let from = text.find(start).unwrap_or_else(|| panic!("`{start}` is in the script")) + start.len();
    let body = &text[from..from + text[from..].find(end).expect("its end")];
    body.split('"').filter(|s| s.starts_with('#') && s.len() == 7).map(String::from).collect()
}

fn rgb(hex: &str) -> [f64; 3] {
    let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap() as f64 / 255.0;
    [c(1), c(3), c(5)]
}

fn linear(c: f64) -> f64 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// CIELAB (D65) of an sRGB colour as seen in a vision.
fn lab(hex: &str, vision: Option<Matrix>) -> [f64; 3] {
    let mut l = rgb(hex).map(linear);
    if let Some(m) = vision {
        l = [0, 1, 2].map(|i| (m[i][0] * l[0] + m[i][1] * l[1] + m[i][2] * l[2]).clamp(0.0, 1.0));
    }
    let x = 0.4124564 * l[0] + 0.3575761 * l[1] + 0.1804375 * l[2];
    let y = 0.2126729 * l[0] + 0.7151522 * l[1] + 0.0721750 * l[2];
    let z = 0.0193339 * l[0] + 0.1191920 * l[1] + 0.9503041 * l[2];
    let f = |t: f64| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 };
    let (fx, fy, fz) = (f(x / 0.95047), f(y), f(z / 1.08883));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// The CIEDE2000 colour difference (Sharma, Wu and Dalal 2005).
fn ciede2000(a: [f64; 3], b: [f64; 3]) -> f64 {
    let ([l1, a1, b1], [l2, a2, b2]) = (a, b);
    let pow7 = |c: f64| c.powi(7);
    let c_bar = (a1.hypot(b1) + a2.hypot(b2)) / 2.0;
    let g = 0.5 * (1.0 - (pow7(c_bar) / (pow7(c_bar) + pow7(25.0))).sqrt());
    let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    let hue = |b: f64, a: f64| if b == 0.0 && a == 0.0 { 0.0 } else { b.atan2(a).to_degrees().rem_euclid(360.0) };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let d_hue = 2.0 * (c1p * c2p).sqrt() * (dh.to_radians() / 2.0).sin();
    let l_bar = (l1 + l2) / 2.0;
    let cp_bar = (c1p + c2p) / 2.0;
    let h_bar = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let cos = |deg: f64| deg.to_radians().cos();
    let t = 1.0 - 0.17 * cos(h_bar - 30.0) + 0.24 * cos(2.0 * h_bar) + 0.32 * cos(3.0 * h_bar + 6.0)
        - 0.20 * cos(4.0 * h_bar - 63.0);
    let d_theta = 30.0 * (-((h_bar - 275.0) / 25.0).powi(2)).exp();
    let r_c = 2.0 * (pow7(cp_bar) / (pow7(cp_bar) + pow7(25.0))).sqrt();
    let s_l = 1.0 + 0.015 * (l_bar - 50.0).powi(2) / (20.0 + (l_bar - 50.0).powi(2)).sqrt();
    let s_c = 1.0 + 0.045 * cp_bar;
    let s_h = 1.0 + 0.015 * cp_bar * t;
    let r_t = -(2.0 * d_theta).to_radians().sin() * r_c;
    ((dl / s_l).powi(2) + (dc / s_c).powi(2) + (d_hue / s_h).powi(2) + r_t * (dc / s_c) * (d_hue / s_h)).sqrt()
}

#[test]
fn ciede2000_matches_published_pairs() {
    // Sharma, Wu and Dalal's test data, pairs 1, 7, 17 and 25.
    for (a, b, want) in [
        ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
        ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
        ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644),
    ] {
        let got = ciede2000(a, b);
        assert!((got - want).abs() < 1e-4, "ΔE00 {a:?} {b:?} = {got}, not {want}");
    }
    // the simulation leaves grey grey, and white white
    let white = lab("#ffffff", VISIONS[2].1);
    assert!((white[0] - 100.0).abs() < 0.5 && white[1].abs() < 1.0 && white[2].abs() < 1.0, "{white:?}");
}

#[test]
fn goods_colours_stay_apart_from_seats_and_each_other_for_colour_blind_eyes() {
    let goods = hex_colours(&asset("caravan.js"), "const KIND_COLORS = {", '}');
    assert_eq!(goods.len(), KINDS.len(), "one colour per kind: {goods:?}");
    let seats = hex_colours(&asset("app.js"), "const COLORS = [", ']');
    assert!(seats.len() >= CARAVAN_SEATS, "{seats:?}");
    let seats = &seats[..CARAVAN_SEATS];
    let mut report = Vec::new();
    for (vision, m) in VISIONS {
        let mut nearest_seat = (f64::MAX, "", "");
        for (kind, g) in KINDS.iter().zip(&goods) {
            for (s, c) in seats.iter().enumerate() {
                let d = ciede2000(lab(g, m), lab(c, m));
                if d < nearest_seat.0 {
                    nearest_seat = (d, kind, ["seat 0", "seat 1", "seat 2", "seat 3"][s]);
                }
            }
        }
        let mut nearest_good = (f64::MAX, "", "");
        for i in 0..goods.len() {
            for j in i + 1..goods.len() {
                let d = ciede2000(lab(&goods[i], m), lab(&goods[j], m));
                if d < nearest_good.0 {
                    nearest_good = (d, KINDS[i], KINDS[j]);
                }
            }
        }
        report.push(format!(
            "{vision}: nearest good to a seat {} vs {} ΔE00 {:.1}; nearest goods {} vs {} ΔE00 {:.1}",
            nearest_seat.1, nearest_seat.2, nearest_seat.0, nearest_good.1, nearest_good.2, nearest_good.0
        ));
        assert!(nearest_seat.0 >= GOODS_FROM_SEATS && nearest_good.0 >= GOODS_FROM_GOODS, "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn the_old_goods_colours_would_fail() {
    // The colours before issue 30 (R1 nearly seat 0's red, R3 seat 2's
    // yellow, C2 seat 1's blue): the check must catch such a palette.
    let old = ["#c0392b", "#8e44ad", "#d4ac0d", "#117a65", "#a04000", "#2e86c1", "#7dcea0", "#f5b7b1"];
    let seats = hex_colours(&asset("app.js"), "const COLORS = [", ']');
    let mut worst = f64::MAX;
    for (_, m) in VISIONS {
        for g in old {
            for c in &seats[..CARAVAN_SEATS] {
                worst = worst.min(ciede2000(lab(g, m), lab(c, m)));
            }
        }
    }
    assert!(worst < GOODS_FROM_SEATS, "the old palette passes: {worst}");
}
