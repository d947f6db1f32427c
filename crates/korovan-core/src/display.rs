//! The table as text: `Display` of the full state (every card shown) and of
//! one seat's observation (what it may not see is `?`).

use std::fmt;

use boardgame_kit::Turn;

use crate::config::HelperCounts;
use crate::observation::KorovanObservation;
use crate::state::{Korovan, Phase};

/// A row's three cards, as people read them (positions 0, 1, 2).
const SIDES: [&str; 3] = ["left", "middle", "right"];

/// Renders rows and status from what a viewer knows.
fn render(f: &mut fmt::Formatter<'_>, o: &KorovanObservation, viewer: Option<usize>) -> fmt::Result {
    let n = usize::from(o.players);
    let turn = match o.turn {
        Turn::Player(p) => format!("seat {p} to act"),
        Turn::Chance => "chance to deal".to_string(),
        Turn::Terminal => "game over".to_string(),
    };
    match viewer {
        Some(v) => writeln!(f, "Korovan, seen by seat {v}")?,
        None => writeln!(f, "Korovan (full table)")?,
    }
    if o.phase == Phase::Over {
        write!(f, "{n} players, game over after {} rounds; cows:", o.round)?;
        for (s, c) in o.cows.iter().enumerate().take(n) {
            write!(f, " s{s}={c}")?;
        }
        return Ok(());
    }
    writeln!(
        f,
        "{n} players, round {} (lap {}), driver seat {}, phase {}, {turn}",
        u32::from(o.round) + 1,
        u32::from(o.lap) + 1,
        o.driver,
        o.phase
    )?;
    write!(f, "cows:")?;
    for (s, c) in o.cows.iter().enumerate().take(n) {
        write!(f, " s{s}={c}")?;
    }
    writeln!(f)?;
    match o.helper_hand {
        Some(h) => writeln!(f, "driver's helpers: {} ({h})", o.helpers_in_hand)?,
        None => writeln!(f, "driver's helpers: {} (hidden)", o.helpers_in_hand)?,
    }
    if !o.helpers_played.is_empty() {
        write!(f, "played this round:")?;
        for (i, a) in o.helpers_played.iter().enumerate() {
            write!(f, "{}{a}", if i == 0 { " " } else { ", " })?;
        }
        writeln!(f)?;
    }
    for r in 0..o.rows_laid.min(8) {
        let owner = (usize::from(o.driver) + 1 + usize::from(r)) % n.max(1);
        let here = o.current_row == Some(r + 1);
        write!(f, "{} row {} (s{owner}):", if here { ">" } else { " " }, r + 1)?;
        for p in 0..3u8 {
            let c = u32::from(r) * 3 + u32::from(p);
            let bit = 1u32 << c;
            let face = if o.known & bit != 0 {
                let a = o.known_ambush & bit != 0;
                match (o.face_up & bit != 0, a) {
                    (true, true) => 'A',
                    (true, false) => 'E',
                    (false, true) => 'a',
                    (false, false) => 'e',
                }
            } else {
                '?'
            };
            let tok = if here && o.token == Some(p) { '@' } else { ' ' };
            let route = if o.route & bit != 0 { '*' } else { ' ' };
            write!(f, " {tok}{face}{route}")?;
        }
        let hand =
            if o.hand_known & (1 << r) != 0 { if o.hand_ambush & (1 << r) != 0 { "A" } else { "E" } } else { "?" };
        write!(f, "   hand {hand}")?;
        if let Some(p) = o.peeks.get(usize::from(r)).copied().flatten() {
            // rows from 1, cards left/middle/right, as the words say them
            write!(f, "   peeked row {} {}", p / 3 + 1, SIDES[usize::from(p % 3)])?;
        }
        writeln!(f)?;
    }
    if o.scouted != 0 || o.spied != 0 {
        write!(f, "targets:")?;
        for c in 0..24u32 {
            if o.scouted & (1 << c) != 0 {
                write!(f, " scouted row {} {};", c / 3 + 1, SIDES[(c % 3) as usize])?;
            }
        }
        for r in 0..8u32 {
            if o.spied & (1 << r) != 0 {
                write!(f, " spied row {};", r + 1)?;
            }
        }
        writeln!(f)?;
    }
    if o.current_row.is_some() {
        write!(f, "switches left: {}", o.switches_left)?;
        if o.pending_fine > 0 {
            write!(f, ", fine due: {}", o.pending_fine)?;
        }
        writeln!(f)?;
    }
    write!(f, "legend: A/E face-up ambush/empty, a/e face-down known to the viewer, ? unknown, @ token, * route")
}

impl fmt::Display for KorovanObservation {
    /// The table as the observer sees it: what it may not see is `?`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, self, Some(usize::from(self.observer)))
    }
}

impl fmt::Display for Korovan {
    /// The whole table, every card shown (`a`/`e` for face-down cards).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Ok(mut o) = KorovanObservation::new(self, usize::from(self.driver)) else {
            return Ok(());
        };
        let laid = self.laid_mask();
        o.known = laid;
        o.known_ambush = self.ambush & laid;
        o.hand_known = 1u32.wrapping_shl(u32::from(self.laid.min(8))).wrapping_sub(1) as u8;
        o.hand_ambush = 0;
        for r in 0..self.laid.min(8) {
            if self.row_ambushes(r) == 1 {
                o.hand_ambush |= 1 << r;
            }
        }
        o.helper_hand = Some(HelperCounts::from_array(self.hand));
        render(f, &o, None)
    }
}
