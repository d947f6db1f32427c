//! [`LabGame`]: what the lab needs to know of an engine beyond
//! [`boardgame_kit::Game`] — the order in which seats lead, and the
//! treatments that measure what a card is worth.

use boardgame_kit::Game;
use boardgame_kit::testgame::HiddenNim;
use caravan_core::Caravan;
use korovan_core::{Action, Helper, Korovan, Phase};

use crate::worth::Treatment;

/// An engine the lab can study.
pub trait LabGame: Game {
    /// The role of the seat that leads (`first driver`, `first player`).
    const LEAD_ROLE: &'static str = "first player";

    /// What [`LabGame::treatments`] force, for the report: completes "each
    /// seed is played twice: as it falls, and …" (empty without
    /// treatments).
    const TREATMENT: &'static str = "";

    /// The seats of `config` in the order they lead, the leader first.
    /// Default: seat 0, 1, 2, … (clockwise from seat 0).
    fn turn_order(config: &Self::Config, players: usize) -> Vec<usize> {
        let _ = config;
        (0..players).collect()
    }

    /// The engine's card-worth treatments (empty by default).
    fn treatments(config: &Self::Config) -> Vec<Box<dyn Treatment<Self>>> {
        let _ = config;
        Vec::new()
    }
}

impl LabGame for HiddenNim {}

/// C-3.3: seat 0 starts, play goes clockwise.
impl LabGame for Caravan {}

impl LabGame for Korovan {
    const LEAD_ROLE: &'static str = "first driver";
    const TREATMENT: &'static str = "with the first card dealt to one seat (seat = seed mod n) whenever it \
                                     drives forced to one kind";

    /// K-2.1, K-2.2: `first_driver` drives first, the role passes
    /// counter-clockwise (`d`, `d − 1`, …).
    fn turn_order(config: &Self::Config, players: usize) -> Vec<usize> {
        let n = players.max(1);
        let d = usize::from(config.first_driver) % n;
        (0..n).map(|k| (d + n - k) % n).collect()
    }

    /// One [`DealKind`] per helper kind the deck holds.
    fn treatments(config: &Self::Config) -> Vec<Box<dyn Treatment<Self>>> {
        Helper::ALL
            .into_iter()
            .filter(|&k| config.deck.get(k) > 0)
            .map(|k| Box::new(DealKind(k)) as Box<dyn Treatment<Self>>)
            .collect()
    }
}

/// Korovan: the first card dealt to the target seat whenever it drives
/// (K-3.1) is `kind` instead of a random draw. Measured against the same
/// seed without the treatment, it is the worth of holding one more card of
/// `kind` in place of one random card of the deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealKind(pub Helper);

impl Treatment<Korovan> for DealKind {
    fn name(&self) -> String {
        self.0.name().to_string()
    }

    fn force(&self, state: &Korovan, target: usize) -> Option<Action> {
        let first_draw = state.phase() == Phase::Deal && state.helper_hand().total() == 0;
        (first_draw && state.driver() == Some(target) && state.helper_deck().get(self.0) > 0)
            .then_some(Action::Deal(self.0))
    }
}
