//! [`CaravanSetup`]: any position, turned into a playable [`Caravan`] only
//! after validation (C-11.2); also the serde form of a state.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::board::{FULL_BAG, KINDS, Kind, SPACES, Square};
use crate::config::CaravanConfig;
use crate::error::{CaravanError, SetupError};
use crate::rules::allowance;
use crate::state::{Caravan, Cargo, EndKind, MAX_CAMELS, MAX_PLAYERS, NO_CAMEL, SUPPLY_LOC};

/// A camel on the board in a [`CaravanSetup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacedCamel {
    /// Its owner's seat.
    pub player: u8,
    /// Its square.
    pub square: Square,
    /// What it carries.
    pub cargo: Cargo,
}

/// A hand-made (or saved) position: every public fact of a Caravan game.
/// [`Caravan::from_setup`] turns it into a state after checking that it can
/// occur (48 goods accounted for, camel counts, markers, turn counters, …);
/// [`Caravan::to_setup`] goes back. It is also the serde form of a state and
/// the typed observation (C-8).
///
/// The builder methods take goods from the bag, so the 48 cubes stay
/// accounted for:
///
/// ```
/// use boardgame_kit::Game;
/// use caravan_core::{Caravan, CaravanConfig, CaravanSetup, Cargo, Kind};
///
/// let sq = |s: &str| s.parse().unwrap();
/// let setup = CaravanSetup::initial(CaravanConfig::with_players(2))
///     .fill_spaces(&[Kind::C1, Kind::C2, Kind::C3, Kind::C4, Kind::R1, Kind::R2, Kind::R3, Kind::R4])
///     .camel(0, sq("a1"), Cargo::Empty)
///     .camel(1, sq("d4"), Cargo::Top(Kind::C3));
/// let game = Caravan::from_setup(&setup).unwrap();
/// assert_eq!(game.bag_len(), 48 - 9);
///
/// let mut bad = setup.clone();
/// bad.bag[0] += 1;
/// assert!(Caravan::from_setup(&bad).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaravanSetup {
    /// The configuration.
    pub config: CaravanConfig,
    /// The camels on the board; the others of each player are in its supply.
    pub camels: Vec<PlacedCamel>,
    /// The good lying on each numbered space (`lying[i]`: space `i + 1`).
    pub lying: [Option<Kind>; SPACES],
    /// Demand markers on each numbered space.
    pub space_markers: [u8; SPACES],
    /// Cubes of each kind in the bag.
    pub bag: [u8; KINDS],
    /// Delivered piles, per seat and kind.
    pub delivered: [[u8; KINDS]; MAX_PLAYERS],
    /// Demand markers held, per seat.
    pub demand_markers: [u8; MAX_PLAYERS],
    /// Theft markers held, per seat.
    pub theft_markers: [u8; MAX_PLAYERS],
    /// The turn index `t` (C-4.1); the player to move is `t % players`.
    pub turn_index: u32,
    /// Actions left in the turn (`1..=min(t + 1, 4)`, or 0 while the draws
    /// of a refill triggered by the turn's last action are pending: C-4.2,
    /// C-6.1; ignored once ended).
    pub actions_left: u8,
    /// Goods picked up since the last refill (C-6.1), `0..=3`.
    pub picks_since_refill: u8,
    /// Numbered spaces waiting for a draw (bit `i`: space `i + 1`).
    pub pending_draws: u8,
    /// Consecutive passes after the opening (C-7.2).
    pub passes: u8,
    /// How the game ended, if it did.
    pub end: Option<EndKind>,
}

impl CaravanSetup {
    /// The position at the start of a game (C-3): every good in the bag,
    /// camels in supply, demand markers on spaces 1, 2, 7, 8, the eight setup
    /// draws pending, seat 0 to move with 1 action.
    pub fn initial(config: CaravanConfig) -> CaravanSetup {
        Caravan::initial(config).to_setup()
    }

    /// Puts a cube of `kind` from the bag on numbered space `number`
    /// (`1..=8`), which no longer waits for a draw. Out-of-range numbers are
    /// ignored; an empty bag shows at validation.
    #[must_use]
    pub fn lay(mut self, number: u8, kind: Kind) -> CaravanSetup {
        if let Some(i) = usize::from(number).checked_sub(1).filter(|&i| i < SPACES) {
            self.lying[i] = Some(kind);
            self.pending_draws &= !(1 << i);
            self.take(kind);
        }
        self
    }

    /// Lays `kinds[i]` on space `i + 1` for each given kind (see [`Self::lay`]).
    #[must_use]
    pub fn fill_spaces(mut self, kinds: &[Kind]) -> CaravanSetup {
        for (i, &k) in kinds.iter().enumerate().take(SPACES) {
            self = self.lay(i as u8 + 1, k);
        }
        self
    }

    /// Takes the good lying on space `number` back into the bag.
    #[must_use]
    pub fn clear_space(mut self, number: u8) -> CaravanSetup {
        if let Some(i) = usize::from(number).checked_sub(1).filter(|&i| i < SPACES)
            && let Some(k) = self.lying[i].take()
        {
            self.bag[k as usize] += 1;
        }
        self
    }

    /// Places a camel of `player` from its supply on `square`, loaded with
    /// `cargo` taken from the bag.
    #[must_use]
    pub fn camel(mut self, player: u8, square: Square, cargo: Cargo) -> CaravanSetup {
        if let Some(k) = cargo.kind() {
            self.take(k);
        }
        self.camels.push(PlacedCamel { player, square, cargo });
        self
    }

    /// Moves `n` cubes of `kind` from the bag to `player`'s delivered pile.
    #[must_use]
    pub fn deliver(mut self, player: u8, kind: Kind, n: u8) -> CaravanSetup {
        for _ in 0..n {
            self.take(kind);
        }
        if let Some(pile) = self.delivered.get_mut(usize::from(player)) {
            pile[kind as usize] = pile[kind as usize].saturating_add(n);
        }
        self
    }

    /// Sets the turn index and the actions left.
    #[must_use]
    pub fn turn(mut self, turn_index: u32, actions_left: u8) -> CaravanSetup {
        self.turn_index = turn_index;
        self.actions_left = actions_left;
        self
    }

    /// Empties the bag into `player`'s delivered pile (a shortcut for
    /// positions after the last refill).
    #[must_use]
    pub fn empty_bag_into(mut self, player: u8) -> CaravanSetup {
        for k in Kind::ALL {
            let n = self.bag[k as usize];
            self = self.deliver(player, k, n);
        }
        self.pending_draws = 0;
        self
    }

    fn take(&mut self, kind: Kind) {
        // An empty bag underflows into a count error at validation: keep the
        // cube counted by wrapping instead of silently dropping it.
        self.bag[kind as usize] = self.bag[kind as usize].wrapping_sub(1);
    }
}

impl Caravan {
    /// The state of a hand-made position, after validating it (C-11.2).
    ///
    /// # Errors
    /// [`CaravanError::Config`] when the configuration is invalid;
    /// [`CaravanError::Setup`] with a [`SetupError`] when the position
    /// cannot occur: goods of a kind not adding up to 3 or 9 (C-1.3); too
    /// many camels or camels of a seat not in the game (C-1.2); a good on
    /// top of a camel in its own city (C-5.4); theft markers not adding up
    /// (C-1.5); actions left outside the allowance (C-4.1); turn counters,
    /// pick count, pending draws or empty spaces that contradict C-6/C-7.
    pub fn from_setup(setup: &CaravanSetup) -> Result<Caravan, CaravanError> {
        setup.config.validate().map_err(CaravanError::Config)?;
        Caravan::check_setup(setup).map_err(CaravanError::Setup)
    }

    /// The checks of [`Caravan::from_setup`] once the configuration is valid.
    fn check_setup(setup: &CaravanSetup) -> Result<Caravan, SetupError> {
        let config = setup.config;
        let players = config.players;
        let np = usize::from(players);
        let mut s = Caravan::blank(config);
        // C-1.2: camels per player.
        let mut placed = [0usize; MAX_PLAYERS];
        let mut count = [0u32; KINDS];
        for c in &setup.camels {
            if c.player >= players {
                return Err(SetupError::CamelOwner { player: c.player, players });
            }
            let p = usize::from(c.player);
            placed[p] += 1;
            if placed[p] > usize::from(config.camels) {
                return Err(SetupError::Camels {
                    player: c.player,
                    found: setup.camels.iter().filter(|x| x.player == c.player).count(),
                    max: config.camels,
                });
            }
            if let Cargo::Top(k) = c.cargo
                && config.board.city(k) == c.square
            {
                return Err(SetupError::Undelivered { kind: k.to_string(), square: c.square.to_string() });
            }
            if let Some(k) = c.cargo.kind() {
                count[k as usize] += 1;
            }
            s.supply[p] = s.supply[p].saturating_sub(1);
            match c.cargo {
                Cargo::Empty => s.add_unladen(p, u32::from(c.square.index())),
                cargo => s.add_load(p, (u16::from(c.square.index()) << 8) | cargo.code()),
            }
        }
        // Seats not in the game hold nothing.
        for p in np..MAX_PLAYERS {
            let what = if setup.delivered[p].iter().any(|&n| n > 0) {
                Some("delivered goods")
            } else if setup.demand_markers[p] > 0 {
                Some("demand markers")
            } else if setup.theft_markers[p] > 0 {
                Some("theft markers")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(SetupError::AbsentPlayer { player: p as u8, what });
            }
        }
        // C-1.3: 48 goods, 3 of each rare and 9 of each common kind.
        for (i, l) in setup.lying.iter().enumerate() {
            if let Some(k) = l {
                count[*k as usize] += 1;
                s.lying[i] = *k as u8 + 1;
            }
        }
        s.refresh_lying();
        for k in 0..KINDS {
            count[k] += u32::from(setup.bag[k]);
            for p in 0..np {
                count[k] += u32::from(setup.delivered[p][k]);
            }
            if count[k] != u32::from(FULL_BAG[k]) {
                return Err(SetupError::Goods {
                    kind: Kind::ALL[k].to_string(),
                    found: count[k],
                    expected: FULL_BAG[k],
                });
            }
        }
        // C-1.5
        let theft: u32 = setup.theft_markers.iter().map(|&n| u32::from(n)).sum();
        if theft != u32::from(players) {
            return Err(SetupError::TheftMarkers { found: theft, expected: players });
        }
        let bag_total: u32 = setup.bag.iter().map(|&n| u32::from(n)).sum();
        if setup.end == Some(EndKind::Natural) && bag_total > 0 {
            return Err(SetupError::NaturalEnd(bag_total));
        }
        s.space_markers = setup.space_markers;
        s.bag = setup.bag;
        s.bag_total = bag_total as u8;
        s.delivered = setup.delivered;
        s.demand = setup.demand_markers;
        s.theft = setup.theft_markers;
        s.turn_index = setup.turn_index;
        s.refresh_seat();
        s.picks = setup.picks_since_refill;
        s.end = setup.end;
        if setup.end.is_some() {
            s.left = 0;
            s.pending = 0;
            s.passes = setup.passes;
            return Ok(s);
        }
        let t = setup.turn_index;
        if t >= config.max_turns {
            return Err(SetupError::TurnIndex { turn: t, max_turns: config.max_turns });
        }
        let a = allowance(t);
        // 0 only while the draws of a refill its last action triggered are
        // pending: the turn ends after them (C-4.2, C-6.1).
        if (setup.actions_left == 0 && setup.pending_draws == 0) || setup.actions_left > a {
            return Err(SetupError::ActionsLeft { turn: t, allowance: a, found: setup.actions_left });
        }
        if setup.passes >= players {
            return Err(SetupError::Passes { found: setup.passes, players });
        }
        if setup.picks_since_refill > 3 {
            return Err(SetupError::Picks(setup.picks_since_refill));
        }
        let pending = setup.pending_draws;
        for i in 0..SPACES {
            if pending & (1 << i) != 0 && setup.lying[i].is_some() {
                return Err(SetupError::Pending("a space waiting for a draw holds a good"));
            }
        }
        if pending.count_ones() > bag_total {
            return Err(SetupError::Pending("more draws pending than goods in the bag"));
        }
        if pending != 0 && setup.picks_since_refill != 0 {
            return Err(SetupError::Pending("draws are pending, so the pick count has just restarted at 0"));
        }
        if bag_total > 0 {
            let empty = setup.lying.iter().filter(|l| l.is_none()).count() as u32;
            let expected = u32::from(setup.picks_since_refill) + pending.count_ones();
            if empty != expected {
                return Err(SetupError::EmptySpaces {
                    empty,
                    expected,
                    picks: setup.picks_since_refill,
                    pending: pending.count_ones(),
                });
            }
        }
        s.left = setup.actions_left;
        s.pending = pending;
        s.passes = setup.passes;
        Ok(s)
    }

    /// The position as a [`CaravanSetup`] (camels listed by seat, then
    /// square and cargo).
    pub fn to_setup(&self) -> CaravanSetup {
        let mut camels = Vec::with_capacity(MAX_PLAYERS * MAX_CAMELS);
        for p in 0..usize::from(self.config.players).min(MAX_PLAYERS) {
            for &k in &self.keys(p) {
                if k == NO_CAMEL || k >> 8 >= SUPPLY_LOC {
                    continue;
                }
                if let Some(square) = Square::from_index((k >> 8) as u8) {
                    camels.push(PlacedCamel { player: p as u8, square, cargo: Cargo::from_code(k & 0xFF) });
                }
            }
        }
        CaravanSetup {
            config: self.config,
            camels,
            lying: self.lying.map(|v| v.checked_sub(1).and_then(Kind::from_index)),
            space_markers: self.space_markers,
            bag: self.bag,
            delivered: self.delivered,
            demand_markers: self.demand,
            theft_markers: self.theft,
            turn_index: self.turn_index,
            actions_left: self.left,
            picks_since_refill: self.picks,
            pending_draws: self.pending,
            passes: self.passes,
            end: self.end,
        }
    }
}

impl TryFrom<CaravanSetup> for Caravan {
    type Error = CaravanError;
    fn try_from(setup: CaravanSetup) -> Result<Caravan, CaravanError> {
        Caravan::from_setup(&setup)
    }
}

/// A state serializes as its [`CaravanSetup`].
impl Serialize for Caravan {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_setup().serialize(serializer)
    }
}

/// A state deserializes from a [`CaravanSetup`], validated by
/// [`Caravan::from_setup`].
impl<'de> Deserialize<'de> for Caravan {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Caravan, D::Error> {
        let setup = CaravanSetup::deserialize(deserializer)?;
        Caravan::from_setup(&setup).map_err(serde::de::Error::custom)
    }
}

impl From<Caravan> for CaravanSetup {
    fn from(state: Caravan) -> CaravanSetup {
        state.to_setup()
    }
}
