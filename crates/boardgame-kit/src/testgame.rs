//! `HiddenNim`: a tiny game that exercises every part of the contract, used by
//! the kit's own tests and doc examples (no engine needed).
//!
//! Rules: two seats. Chance deals seat 0 and then seat 1 one secret card each
//! from the three cards `1, 2, 3` (without replacement, so the second deal has
//! two equally likely outcomes). Then the seats take turns, seat 0 first,
//! removing 1 or 2 stones from a pile of `stones` (configurable, 1..=20).
//! Whoever takes the last stone earns 2 points; each seat's score is its
//! bonus plus its card. The higher score wins; equal scores are a draw.
//! A seat sees its own card, never the other's, until the game ends.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::{ActionId, ChanceOutcome, Game, GameRng, Outcome, Seats, Turn, Viewer, chance_actions};

/// Configuration of [`HiddenNim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NimConfig {
    /// The starting pile, 1..=20.
    pub stones: u8,
}

impl Default for NimConfig {
    fn default() -> Self {
        NimConfig { stones: 5 }
    }
}

/// An action of [`HiddenNim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NimAction {
    /// Chance: the next seat to be dealt receives this card (1..=3).
    Deal(u8),
    /// Remove 1 or 2 stones.
    Take(u8),
}

impl fmt::Display for NimAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NimAction::Deal(c) => write!(f, "deal {c}"),
            NimAction::Take(n) => write!(f, "take {n}"),
        }
    }
}

impl FromStr for NimAction {
    type Err = NimError;
    fn from_str(s: &str) -> Result<Self, NimError> {
        let bad = || NimError::Notation(s.to_string());
        let (verb, n) = s.trim().split_once(' ').ok_or_else(bad)?;
        let n: u8 = n.trim().parse().map_err(|_| bad())?;
        match verb {
            "deal" if (1..=3).contains(&n) => Ok(NimAction::Deal(n)),
            "take" if (1..=2).contains(&n) => Ok(NimAction::Take(n)),
            _ => Err(bad()),
        }
    }
}

/// Errors of [`HiddenNim`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NimError {
    /// The pile is out of range.
    #[error("stones must be between 1 and 20, got {0}")]
    Config(u8),
    /// The action is not legal now.
    #[error("illegal action {0}: {1}")]
    Illegal(NimAction, &'static str),
    /// The id is outside the action space.
    #[error("unknown action id {0} (the action space has 5 ids)")]
    UnknownId(ActionId),
    /// The text is not an action.
    #[error("cannot parse {0:?} as an action (expected `deal 1..3` or `take 1..2`)")]
    Notation(String),
    /// The seat does not exist.
    #[error("seat {0} does not exist (2 seats)")]
    Seat(usize),
    /// A tensor buffer of the wrong size.
    #[error("tensor buffer has length {0}, expected 6")]
    Buffer(usize),
}

/// The state of a game of [`HiddenNim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HiddenNim {
    config: NimConfig,
    stones: u8,
    cards: [u8; 2],
    to_move: u8,
    last_taker: Option<u8>,
}

/// What one seat knows of a [`HiddenNim`] game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NimObservation {
    /// Stones left.
    pub stones: u8,
    /// Whose turn.
    pub turn: Turn,
    /// The observer's card, 0 before it is dealt.
    pub own_card: u8,
    /// The other card, shown only once the game is over (else 0).
    pub other_card: u8,
}

impl Game for HiddenNim {
    type Config = NimConfig;
    type Action = NimAction;
    type ActionList = ArrayVec<NimAction, 3>;
    type ChanceList = ArrayVec<ChanceOutcome<NimAction>, 3>;
    type Observation = NimObservation;
    type Error = NimError;
    const NAME: &'static str = "hidden-nim";
    const RULES_VERSION: u32 = 1;

    fn new_game(config: &NimConfig) -> Result<Self, NimError> {
        if !(1..=20).contains(&config.stones) {
            return Err(NimError::Config(config.stones));
        }
        Ok(HiddenNim { config: *config, stones: config.stones, cards: [0, 0], to_move: 0, last_taker: None })
    }
    fn config(&self) -> &NimConfig {
        &self.config
    }
    fn num_players(&self) -> usize {
        2
    }
    fn turn(&self) -> Turn {
        if self.cards[1] == 0 {
            Turn::Chance
        } else if self.stones == 0 {
            Turn::Terminal
        } else {
            Turn::Player(self.to_move as usize)
        }
    }
    fn legal_actions(&self, out: &mut Self::ActionList) {
        out.clear();
        match self.turn() {
            Turn::Chance => chance_actions(self, out),
            Turn::Player(_) => {
                out.push(NimAction::Take(1));
                if self.stones >= 2 {
                    out.push(NimAction::Take(2));
                }
            }
            Turn::Terminal => {}
        }
    }
    fn chance_outcomes(&self, out: &mut Self::ChanceList) {
        out.clear();
        if self.turn() == Turn::Chance {
            for c in 1..=3 {
                if self.cards[0] != c {
                    out.push(ChanceOutcome { action: NimAction::Deal(c), weight: 1 });
                }
            }
        }
    }
    fn validate(&self, action: NimAction) -> Result<(), NimError> {
        match (self.turn(), action) {
            (Turn::Terminal, _) => Err(NimError::Illegal(action, "the game is over")),
            (Turn::Chance, NimAction::Deal(c)) if (1..=3).contains(&c) && self.cards[0] != c => Ok(()),
            (Turn::Chance, NimAction::Deal(_)) => Err(NimError::Illegal(action, "that card is not in the deck")),
            (Turn::Chance, NimAction::Take(_)) => Err(NimError::Illegal(action, "cards are being dealt")),
            (Turn::Player(_), NimAction::Deal(_)) => Err(NimError::Illegal(action, "it is a player's turn")),
            (Turn::Player(_), NimAction::Take(n)) if n == 1 || (n == 2 && self.stones >= 2) => Ok(()),
            (Turn::Player(_), NimAction::Take(_)) => Err(NimError::Illegal(action, "not that many stones")),
        }
    }
    fn apply_unchecked(&mut self, action: NimAction) {
        match action {
            NimAction::Deal(c) => {
                let slot = usize::from(self.cards[0] != 0);
                self.cards[slot] = c;
            }
            NimAction::Take(n) => {
                self.stones = self.stones.saturating_sub(n);
                self.last_taker = Some(self.to_move);
                self.to_move ^= 1;
            }
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        if self.turn() != Turn::Terminal {
            return None;
        }
        let (a, b) = (self.score(0), self.score(1));
        Some(match a.cmp(&b) {
            std::cmp::Ordering::Greater => Outcome::Winner(0),
            std::cmp::Ordering::Less => Outcome::Winner(1),
            std::cmp::Ordering::Equal => Outcome::Draw(Seats::EMPTY.with(0).with(1)),
        })
    }
    fn score(&self, seat: usize) -> i32 {
        if seat > 1 {
            return 0;
        }
        let bonus = if self.stones == 0 && self.last_taker == Some(seat as u8) { 2 } else { 0 };
        bonus + i32::from(self.cards[seat])
    }
    fn num_distinct_actions(_: &NimConfig) -> usize {
        5
    }
    fn max_game_length(config: &NimConfig) -> usize {
        2 + usize::from(config.stones)
    }
    fn action_id(_: &NimConfig, action: NimAction) -> ActionId {
        match action {
            NimAction::Deal(c) => u32::from(c.clamp(1, 3)) - 1,
            NimAction::Take(n) => 2 + u32::from(n.clamp(1, 2)),
        }
    }
    fn action_from_id(_: &NimConfig, id: ActionId) -> Result<NimAction, NimError> {
        match id {
            0..=2 => Ok(NimAction::Deal(id as u8 + 1)),
            3 | 4 => Ok(NimAction::Take(id as u8 - 2)),
            _ => Err(NimError::UnknownId(id)),
        }
    }
    fn observation(&self, seat: usize) -> Result<NimObservation, NimError> {
        if seat > 1 {
            return Err(NimError::Seat(seat));
        }
        let over = self.turn() == Turn::Terminal;
        Ok(NimObservation {
            stones: self.stones,
            turn: self.turn(),
            own_card: self.cards[seat],
            other_card: if over { self.cards[1 - seat] } else { 0 },
        })
    }
    fn observation_tensor_shape(_: &NimConfig) -> Vec<usize> {
        vec![6]
    }
    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), NimError> {
        let obs = self.observation(seat)?;
        let len = out.len();
        let out: &mut [f32; 6] = out.try_into().map_err(|_| NimError::Buffer(len))?;
        *out = [0.0; 6];
        out[0] = f32::from(obs.stones);
        out[1] = match obs.turn {
            Turn::Player(p) if p == seat => 1.0,
            _ => 0.0,
        };
        if obs.own_card > 0 {
            out[1 + usize::from(obs.own_card)] = 1.0;
        }
        out[5] = f32::from(obs.other_card);
        Ok(())
    }
    fn view_action(&self, viewer: Viewer, action: NimAction) -> Option<NimAction> {
        match action {
            // a deal is seen by the seat dealt to alone
            NimAction::Deal(_) => {
                let dealt_to = usize::from(self.cards[0] != 0);
                (viewer == Viewer::Seat(dealt_to)).then_some(action)
            }
            NimAction::Take(_) => Some(action),
        }
    }
    fn determinize(&self, observer: usize, rng: &mut GameRng) -> Result<Self, NimError> {
        if observer > 1 {
            return Err(NimError::Seat(observer));
        }
        let mut s = *self;
        let other = 1 - observer;
        if self.turn() != Turn::Terminal && s.cards[other] != 0 {
            // the other card is any card the observer does not hold
            let mut options = [0u8; 3];
            let mut n = 0;
            for c in 1..=3u8 {
                if c != s.cards[observer] {
                    options[n] = c;
                    n += 1;
                }
            }
            s.cards[other] = options[rng.index(n)];
        }
        Ok(s)
    }
}

/// Words for people (the kit's tests of [`crate::Words`]): a deal names its
/// card only to the seat dealt to.
impl crate::Words for HiddenNim {
    fn words(&self, viewer: Viewer, action: NimAction, lang: crate::Lang) -> String {
        let seen = self.view_action(viewer, action);
        let (deal_hidden, deal, take) = match lang {
            crate::Lang::En => ("A card is dealt face down", "You are dealt card {n}", "Take {n} stones"),
            crate::Lang::Ru => ("Сдаётся карта рубашкой вверх", "Вам сдана карта {n}", "Взять камни: {n}"),
        };
        match seen {
            None => deal_hidden.to_string(),
            Some(NimAction::Deal(c)) => crate::fill(deal, &[("n", &c.to_string())]),
            Some(NimAction::Take(n)) => crate::fill(take, &[("n", &n.to_string())]),
        }
    }

    fn how_to_play(lang: crate::Lang) -> &'static str {
        match lang {
            crate::Lang::En => "Take 1 or 2 stones in turn; whoever takes the last stone earns 2 points.",
            crate::Lang::Ru => "По очереди берите 1 или 2 камня; взявший последний камень получает 2 очка.",
        }
    }
}

#[cfg(test)]
mod words_tests {
    use super::*;
    use crate::check_words_in_game;

    #[test]
    fn hidden_nim_words_hide_what_its_view_hides() {
        for seed in 0..20 {
            check_words_in_game::<HiddenNim>(&NimConfig::default(), seed, 100).unwrap();
        }
    }
}
