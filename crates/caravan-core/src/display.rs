//! `Display` for [`Caravan`] (an ASCII board a person can read) and for
//! [`CaravanObservation`] (the same board, seen by a seat: C-8, a seat sees
//! everything).

use std::fmt::{self, Write as _};

use boardgame_kit::Turn;

use crate::board::{KINDS, Kind, SIDE, Square};
use crate::observation::CaravanObservation;
use crate::rules::allowance;
use crate::state::{Caravan, Cargo, EndKind};

const CELL: usize = 9;

/// `n` and the noun that goes with it: `1 point`, `0 points`, `-1 points`.
fn count(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for Caravan {
    /// The board: one cell per square with two lines. The first shows the
    /// terrain — `@R1` the city that wants R1, `#3` numbered space 3 with the
    /// good lying there (`#3 C2`) and its demand markers (`*1`). The second
    /// shows the camels, each as its seat's digit and a mark: `.` unladen,
    /// `^C1` a good on top, `vC1` a good under (a full cell ends in `+`;
    /// the `carried:` line lists every laden camel). The players' scores,
    /// piles and markers and whose turn it is follow.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = usize::from(self.config.players);
        let board = &self.config.board;
        match self.whose_turn() {
            Turn::Terminal => writeln!(
                f,
                "Caravan: game over after {} ({} end)",
                count(i64::from(self.turn_index), "turn", "turns"),
                match self.end {
                    Some(EndKind::Natural) => "natural",
                    Some(EndKind::MaxTurns) => "max_turns",
                    Some(EndKind::Passes) => "passes",
                    None => "unknown",
                }
            )?,
            Turn::Chance => writeln!(
                f,
                "Caravan: turn {}, seat {} to move, {} of {} left; drawing goods from the bag",
                self.turn_index,
                self.to_move(),
                self.left,
                count(i64::from(allowance(self.turn_index)), "action", "actions")
            )?,
            Turn::Player(p) => writeln!(
                f,
                "Caravan: turn {}, seat {p} to move, {} of {} left",
                self.turn_index,
                self.left,
                count(i64::from(allowance(self.turn_index)), "action", "actions")
            )?,
        }
        write!(f, "   ")?;
        for c in 0..SIDE {
            write!(f, " {:<w$}", (b'a' + c as u8) as char, w = CELL)?;
        }
        writeln!(f)?;
        let rule = format!("   +{}", format!("{}+", "-".repeat(CELL)).repeat(SIDE));
        writeln!(f, "{rule}")?;
        for r in 0..SIDE {
            let mut top = format!("{:>2} |", r + 1);
            let mut bottom = String::from("   |");
            for c in 0..SIDE {
                let Some(sq) = Square::new(r as u8, c as u8) else {
                    continue;
                };
                let mut t = String::new();
                if let Some(k) = board.city_kind(sq) {
                    let _ = write!(t, "@{k}");
                }
                if let Some(num) = board.space_number(sq) {
                    let _ = write!(t, "#{num}");
                    if let Some(k) = self.lying(num) {
                        let _ = write!(t, " {k}");
                    }
                    let m = self.space_markers(num);
                    if m > 0 {
                        let _ = write!(t, "*{m}");
                    }
                }
                let mut b = String::new();
                for p in 0..n {
                    for (s, cargo) in self.camels_on_board(p) {
                        if s == sq {
                            let _ = match cargo {
                                Cargo::Empty => write!(b, "{p}."),
                                Cargo::Top(k) => write!(b, "{p}^{k}"),
                                Cargo::Under(k) => write!(b, "{p}v{k}"),
                            };
                        }
                    }
                }
                if b.len() > CELL {
                    b.truncate(CELL - 1);
                    b.push('+');
                }
                let _ = write!(top, "{t:<CELL$}|");
                let _ = write!(bottom, "{b:<CELL$}|");
            }
            writeln!(f, "{top}")?;
            writeln!(f, "{bottom}")?;
            writeln!(f, "{rule}")?;
        }
        let mut carried = Vec::new();
        for p in 0..n {
            for (s, cargo) in self.camels_on_board(p) {
                match cargo {
                    Cargo::Top(k) => carried.push(format!("{s} seat {p} ^{k}")),
                    Cargo::Under(k) => carried.push(format!("{s} seat {p} v{k}")),
                    Cargo::Empty => {}
                }
            }
        }
        if !carried.is_empty() {
            writeln!(f, "carried: {}", carried.join(", "))?;
        }
        let bag: Vec<String> = Kind::ALL
            .iter()
            .filter(|k| self.bag[**k as usize] > 0)
            .map(|k| format!("{k}x{}", self.bag[*k as usize]))
            .collect();
        writeln!(
            f,
            "bag: {} [{}]; picks since refill: {}",
            count(i64::from(self.bag_total), "good", "goods"),
            bag.join(" "),
            self.picks
        )?;
        for p in 0..n {
            let pile: Vec<String> = (0..KINDS)
                .filter(|&k| self.delivered[p][k] > 0)
                .map(|k| format!("{}x{}", Kind::ALL[k], self.delivered[p][k]))
                .collect();
            writeln!(
                f,
                "seat {p}: {}; delivered [{}]; markers: {} demand, {} theft; {} in supply{}",
                count(i64::from(self.points(p)), "point", "points"),
                pile.join(" "),
                self.demand[p],
                self.theft[p],
                count(i64::from(self.supply[p]), "camel", "camels"),
                if self.whose_turn() == Turn::Player(p) { "  <- to move" } else { "" }
            )?;
        }
        writeln!(
            f,
            "(@K city wanting K, #n numbered space [good, *markers]; camels: seat + . unladen, ^K good on top, vK good under)"
        )?;
        Ok(())
    }
}

impl fmt::Display for CaravanObservation {
    /// The observing seat, then the whole table as [`Caravan`]'s `Display`
    /// draws it: a seat sees everything (C-8.1, C-8.2). A hand-made
    /// observation that is no position of the rules says so instead.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Seen by seat {}", self.observer)?;
        match Caravan::from_setup(&self.position) {
            Ok(state) => write!(f, "{state}"),
            Err(e) => write!(f, "(not a valid position: {e})"),
        }
    }
}
