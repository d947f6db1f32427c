//! [`KorovanSetup`]: any hand-made position, turned into a playable
//! [`Korovan`] only through the validating [`Korovan::from_setup`] (the
//! `Setup` → position pattern of chess libraries). It is also the serde form
//! of a state, so a deserialized state is validated the same way.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::action::{Action, AmbushSet};
use crate::config::{HelperCounts, KorovanConfig, MAX_PLAYERS, MAX_ROWS};
use crate::error::{KorovanError, SetupError};
use crate::state::{HelperLog, Korovan, NONE, Phase};

/// One laid row of a [`KorovanSetup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowSetup {
    /// Where the row's ambushes are (K-4.3).
    pub ambush: AmbushSet,
    /// Which positions are face up.
    pub face_up: [bool; 3],
    /// The card the row's owner peeked at before laying, as `(row, pos)`
    /// with a 1-based row (K-4.2); `None` for row 1 only.
    pub peek: Option<(u8, u8)>,
    /// Positions the driver scouted this round.
    pub scouted: [bool; 3],
    /// Whether the driver spied this row's hand card.
    pub spied: bool,
    /// The position where the token resolved in this row, once resolved.
    pub route: Option<u8>,
}

impl RowSetup {
    /// A face-down row with this layout, no peek, nothing resolved.
    pub fn new(ambush: AmbushSet) -> RowSetup {
        RowSetup { ambush, face_up: [false; 3], peek: None, scouted: [false; 3], spied: false, route: None }
    }

    /// The same row with its owner's peek at `(row, pos)` (1-based row).
    #[must_use]
    pub fn peeked(mut self, row: u8, pos: u8) -> RowSetup {
        self.peek = Some((row, pos));
        self
    }
}

/// A position described field by field. The driver is derived from `round`
/// (K-2.2), the hand cards from the layouts (K-4.3), the shown hand cards
/// from the route (K-5.5), the deck from the composition minus the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KorovanSetup {
    /// The configuration.
    pub config: KorovanConfig,
    /// Rounds completed before this one (0-based), skipped rounds included.
    pub round: u8,
    /// Cows per seat (length N).
    pub cows: Vec<u8>,
    /// The phase.
    pub phase: Phase,
    /// The driver's helper hand.
    pub helper_hand: HelperCounts,
    /// Helpers played this round (back in the deck), per kind.
    pub played: HelperCounts,
    /// The same helpers with their targets, in the order played (K-8.1);
    /// it must agree with `played`.
    #[serde(default)]
    pub helpers_played: Vec<Action>,
    /// The rows laid, in laying order (row 1 first).
    pub rows: Vec<RowSetup>,
    /// The current journey row, 1-based, in `Place`/`Decide`/`Defend`; else 0.
    pub current_row: u8,
    /// The token's position in `Decide`/`Defend`.
    pub token: Option<u8>,
    /// Switches left in the step (1 outside `Decide`/`Defend`).
    pub switches_left: u8,
    /// In `Lay` after row 1: the card the competitor about to lay peeked at,
    /// `(row, pos)` with a 1-based row (K-4.2); `None` otherwise.
    #[serde(default)]
    pub pending_peek: Option<(u8, u8)>,
}

impl KorovanSetup {
    /// The setup of a new game.
    ///
    /// # Errors
    /// When the configuration is invalid.
    pub fn new(config: KorovanConfig) -> Result<KorovanSetup, KorovanError> {
        Ok(Korovan::new(&config)?.to_setup())
    }

    /// The start of a journey (phase `Place`, row 1) of round `round` with
    /// these row layouts and driver hand; every player has the starting cows
    /// (N+1 by default), every competitor but the first peeked at card 1.0.
    /// Adjust the fields before [`Korovan::from_setup`] as needed.
    pub fn journey(config: KorovanConfig, round: u8, layouts: &[AmbushSet], hand: HelperCounts) -> KorovanSetup {
        let n = config.players;
        KorovanSetup {
            config,
            round,
            cows: vec![config.start_cows(); usize::from(n)],
            phase: Phase::Place,
            helper_hand: hand,
            played: HelperCounts::NONE,
            helpers_played: Vec::new(),
            rows: layouts
                .iter()
                .enumerate()
                .map(|(i, &a)| {
                    let r = RowSetup::new(a);
                    if i == 0 { r } else { r.peeked(1, 0) }
                })
                .collect(),
            current_row: 1,
            token: None,
            switches_left: 1,
            pending_peek: None,
        }
    }

    /// The driver of this setup's round (K-2.2).
    pub fn driver(&self) -> usize {
        let n = u32::from(self.config.players.max(1));
        let d = (u32::from(self.config.first_driver) + n * 256 - u32::from(self.round) % n) % n;
        d as usize
    }
}

fn bits3(b: [bool; 3]) -> u32 {
    u32::from(b[0]) | (u32::from(b[1]) << 1) | (u32::from(b[2]) << 2)
}

impl Korovan {
    /// The position as a [`KorovanSetup`].
    pub fn to_setup(&self) -> KorovanSetup {
        let rows = (0..self.laid)
            .map(|r| {
                let shift = u32::from(r) * 3;
                let b = |m: u32| {
                    let x = (m >> shift) & 7;
                    [x & 1 != 0, x & 2 != 0, x & 4 != 0]
                };
                let route = (self.resolved >> shift) & 7;
                let peek = self.peeks[usize::from(r)];
                RowSetup {
                    ambush: AmbushSet::from_mask(((self.ambush >> shift) & 7) as u8).unwrap_or(AmbushSet::ALL[0]),
                    face_up: b(self.face_up),
                    peek: (peek != NONE).then(|| (peek / 3 + 1, peek % 3)),
                    scouted: b(self.scouted),
                    spied: self.spied & (1 << r) != 0,
                    route: (route != 0).then(|| route.trailing_zeros() as u8),
                }
            })
            .collect();
        let journey = matches!(self.phase, Phase::Place | Phase::Decide | Phase::Defend);
        KorovanSetup {
            config: self.config,
            round: self.round,
            cows: self.cows[..usize::from(self.n)].to_vec(),
            phase: self.phase,
            helper_hand: HelperCounts::from_array(self.hand),
            played: HelperCounts::from_array(self.played),
            helpers_played: self.log.iter().collect(),
            rows,
            current_row: if journey { self.row + 1 } else { 0 },
            token: self.token(),
            switches_left: self.switches,
            pending_peek: match self.peeks.get(usize::from(self.laid)) {
                Some(&p) if p != NONE && self.phase == Phase::Lay => Some((p / 3 + 1, p % 3)),
                _ => None,
            },
        }
    }

    /// Builds a playable state from a hand-made position, after checking it
    /// against the rules' invariants.
    ///
    /// ```
    /// use korovan_core::{AmbushSet, HelperCounts, Korovan, KorovanConfig, KorovanSetup};
    /// let config = KorovanConfig { players: 3, hand_size: Some(0), ..Default::default() };
    /// let rows = [AmbushSet::ALL[0], AmbushSet::ALL[3]];
    /// let setup = KorovanSetup::journey(config, 0, &rows, HelperCounts::NONE);
    /// let game = Korovan::from_setup(&setup).unwrap();
    /// assert_eq!(game.current_row(), Some(1));
    /// let mut bad = setup.clone();
    /// bad.cows[0] += 1;
    /// assert!(Korovan::from_setup(&bad).is_err());
    /// ```
    ///
    /// The checks are listed at [`SetupError`].
    ///
    /// # Errors
    /// [`GameError::Config`](boardgame_kit::GameError::Config) when the configuration is invalid;
    /// [`GameError::Setup`](boardgame_kit::GameError::Setup) naming the first invariant the position breaks.
    pub fn from_setup(setup: &KorovanSetup) -> Result<Korovan, KorovanError> {
        let g = Korovan::new(&setup.config)?;
        build(g, setup).map_err(KorovanError::Setup)
    }
}

/// The driver of round `j` of a game configured with `config` (K-2.1, K-2.2).
fn driver_of(config: &KorovanConfig, j: u32) -> usize {
    let n = u32::from(config.players.max(1));
    ((u32::from(config.first_driver) + n * 256 - j % n) % n) as usize
}

/// The cows `seat` can hold in round `s.round` (K-1.2, K-5.5, K-5.7), the
/// round's own fines aside: every seat starts with the starting cows; in a
/// round it drives a seat may lose all and gain at most N−1 tolls; in a
/// round it competes it loses at most one toll and gains at most one fine.
fn cow_range(s: &KorovanSetup, seat: usize) -> (u32, u32) {
    let config = &s.config;
    let start = u32::from(config.start_cows());
    let n = u32::from(config.players);
    let fine = u32::from(config.fines.max());
    let (mut low, mut high) = (start, start);
    for j in 0..u32::from(s.round) {
        if driver_of(config, j) == seat {
            low = 0;
            high += n - 1;
        } else {
            low = low.saturating_sub(1);
            high += fine;
        }
    }
    (low, high)
}

fn build(mut g: Korovan, s: &KorovanSetup) -> Result<Korovan, SetupError> {
    use SetupError as E;
    let config = s.config;
    let n = config.players;
    let nu = usize::from(n);
    // K-1.1, K-1.2
    if s.cows.len() != nu {
        return Err(E::CowsLength { found: s.cows.len(), players: n });
    }
    let total: u32 = s.cows.iter().map(|&c| u32::from(c)).sum();
    let expected = u32::from(n) * u32::from(config.start_cows());
    if total != expected {
        return Err(E::CowsTotal { found: total, expected });
    }
    let rounds = config.rounds();
    let over = s.phase == Phase::Over;
    if (over && u32::from(s.round) != rounds) || (!over && u32::from(s.round) >= rounds) {
        return Err(E::Round { round: s.round, rounds, phase: s.phase });
    }
    let mut cows = [0u8; MAX_PLAYERS];
    cows[..nu].copy_from_slice(&s.cows);
    g.cows = cows;
    g.round = s.round;
    g.driver = s.driver() as u8;
    g.phase = s.phase;
    let driver = s.driver();
    if !over && cows[driver] == 0 {
        return Err(E::CowlessDriver(driver));
    }
    // K-4.1: rows laid per phase
    let laid = s.rows.len();
    let journey = matches!(s.phase, Phase::Place | Phase::Decide | Phase::Defend);
    let rows_ok = match s.phase {
        Phase::Deal | Phase::Over => laid == 0,
        Phase::Peek => (1..=nu - 2).contains(&laid),
        Phase::Lay => laid <= nu - 2,
        _ => laid == nu - 1,
    };
    if !rows_ok || laid > MAX_ROWS {
        return Err(E::RowCount { phase: s.phase, rows: laid, players: n });
    }
    g.laid = laid as u8;
    // the journey fields
    let row0: usize = if journey {
        if s.current_row < 1 || usize::from(s.current_row) > laid {
            return Err(E::Journey("current_row must be a row 1..=N-1"));
        }
        usize::from(s.current_row - 1)
    } else {
        if s.current_row != 0 {
            return Err(E::Journey("current_row must be 0 outside the journey"));
        }
        0
    };
    g.row = row0 as u8;
    let mut routes_hit_ambush = 0u32;
    let mut flares = 0u32;
    let mut scouts = 0u32;
    let mut spies = 0u32;
    for (i, r) in s.rows.iter().enumerate() {
        let rowno = (i + 1) as u8;
        let err = |problem| E::Row { row: rowno, problem };
        let shift = (i * 3) as u32;
        g.ambush |= u32::from(r.ambush.mask()) << shift;
        // K-4.2
        match (i, r.peek) {
            (0, None) => {}
            (0, Some(_)) => return Err(err("the first competitor does not peek (K-4.2)")),
            (_, None) => return Err(err("every competitor but the first peeks (K-4.2)")),
            (_, Some((pr, pp))) => {
                if pr < 1 || usize::from(pr) > i || pp > 2 {
                    return Err(err("the peek must target a card of an earlier row (K-4.2)"));
                }
                g.peeks[i] = (pr - 1) * 3 + pp;
            }
        }
        let up = bits3(r.face_up);
        let sc = bits3(r.scouted);
        if !journey && (up != 0 || sc != 0 || r.spied || r.route.is_some()) {
            return Err(err("cards are turned, scouted or spied only during the journey"));
        }
        g.face_up |= up << shift;
        g.scouted |= sc << shift;
        scouts += sc.count_ones();
        if r.spied {
            g.spied |= 1 << i;
            spies += 1;
        }
        let resolved_here = i < row0 || (i == row0 && s.phase == Phase::Defend);
        match (resolved_here, r.route) {
            (false, None) => flares += up.count_ones(),
            (false, Some(_)) => return Err(err("only passed rows have a route")),
            (true, None) => return Err(err("a passed row needs its route position")),
            (true, Some(p)) => {
                if p > 2 || up & (1 << p) == 0 {
                    return Err(err("the route card must be face up"));
                }
                g.resolved |= 1 << (shift + u32::from(p));
                flares += up.count_ones() - 1;
                if r.ambush.contains(p) {
                    g.shown |= 1 << i;
                    if i < row0 {
                        routes_hit_ambush += 1;
                    }
                }
            }
        }
    }
    // K-1.2, K-5.5, K-5.7: every seat's cows within reach of the rounds played
    for (seat, &c) in s.cows.iter().enumerate() {
        let (mut low, mut high) = cow_range(s, seat);
        if !over && seat == driver {
            if journey {
                low = 0; // it may have paid fines this round
            }
        } else if !over && journey {
            // the fine of this seat's row, if that row was passed on an ambush
            let r = (seat + nu - driver - 1) % nu;
            if r < row0
                && let Some(row) = s.rows.get(r)
                && let Some(p) = row.route
                && row.ambush.contains(p)
            {
                high += u32::from(config.fines.for_row(row.ambush.count()));
            }
        }
        if u32::from(c) < low || u32::from(c) > high {
            return Err(E::CowsOutOfReach { seat, cows: c, low, high });
        }
    }
    // K-4.2: the competitor about to lay (after the first) has peeked
    match (s.phase == Phase::Lay && laid >= 1, s.pending_peek) {
        (false, None) => {}
        (false, Some(_)) => {
            return Err(E::Journey("a pending peek exists only in the lay phase after row 1"));
        }
        (true, None) => {
            return Err(E::Journey("the competitor about to lay must have peeked (K-4.2)"));
        }
        (true, Some((pr, pp))) => {
            if pr < 1 || usize::from(pr) > laid || pp > 2 {
                return Err(E::Journey("the pending peek must target a laid card (K-4.2)"));
            }
            g.peeks[laid] = (pr - 1) * 3 + pp;
        }
    }
    // token, switches, fine
    let st = u32::from(s.played.second_thought);
    match (s.phase, s.token) {
        (Phase::Decide, Some(p)) if p < 3 => {}
        (Phase::Defend, Some(p)) if p < 3 => {
            let r = &s.rows[row0];
            if r.route != Some(p) || !r.ambush.contains(p) {
                return Err(E::Journey("in the defend phase the token is on the current row's resolved ambush"));
            }
            g.fine = config.fines.for_row(r.ambush.count()); // K-5.5
        }
        (Phase::Decide | Phase::Defend, _) => {
            return Err(E::Journey("the token must be on a position 0..=2"));
        }
        (_, None) => {}
        (_, Some(_)) => return Err(E::Journey("the token is on the table only after Place")),
    }
    g.token = s.token.unwrap_or(NONE);
    let switches_ok = match s.phase {
        Phase::Decide | Phase::Defend => u32::from(s.switches_left) <= 1 + st,
        _ => s.switches_left == 1,
    };
    if !switches_ok {
        return Err(E::Journey("switches left must be 1 before Place and at most 1 + SecondThoughts played"));
    }
    g.switches = s.switches_left;
    // helpers: K-3.1, K-6, K-7.1
    let hand = s.helper_hand.to_array();
    let played = s.played.to_array();
    let comp = config.deck.to_array();
    let hand_total = s.helper_hand.total();
    let played_total = s.played.total();
    let hs = u32::from(config.hand());
    for k in 0..6 {
        if u32::from(hand[k]) + u32::from(played[k]) > u32::from(comp[k]) {
            return Err(E::Helpers("hand and played cards exceed the deck composition"));
        }
    }
    let helpers_ok = match s.phase {
        Phase::Deal => hand_total < hs && played_total == 0,
        Phase::Peek | Phase::Lay => hand_total == hs && played_total == 0,
        Phase::Over => hand_total == 0 && played_total == 0,
        _ => hand_total + played_total == hs,
    };
    if !helpers_ok {
        return Err(E::Helpers("the hand must hold the cards dealt so far (N-1 once dealt) minus those played"));
    }
    if scouts > u32::from(s.played.scout)
        || spies > u32::from(s.played.spy)
        || flares > u32::from(s.played.flare)
        || u32::from(s.played.guard) + u32::from(s.played.haggle) > routes_hit_ambush
    {
        return Err(E::Helpers("scouted cards, spied rows, flared cards and defences need as many helpers played"));
    }
    // K-8.1: the log of played helpers agrees with the counts and the targets
    let log = HelperLog::from_actions(&s.helpers_played)
        .ok_or(E::Helpers("helpers_played lists helper actions only, at most one hand"))?;
    let mut counted = [0u8; 6];
    let (mut log_scouted, mut log_spied, mut log_flared) = (0u32, 0u8, 0u32);
    for a in log.iter() {
        if let Some(h) = a.helper() {
            counted[h.index()] = counted[h.index()].saturating_add(1);
        }
        match a {
            Action::Scout { row, pos } | Action::Flare { row, pos } => {
                if row < 1 || usize::from(row) > laid || pos > 2 {
                    return Err(E::Helpers("a Scout or Flare in helpers_played targets a card not laid"));
                }
                let bit = 1u32 << ((u32::from(row) - 1) * 3 + u32::from(pos));
                if matches!(a, Action::Scout { .. }) {
                    log_scouted |= bit;
                } else if log_flared & bit != 0 {
                    return Err(E::Helpers("a card is flared only while face down, so at most once"));
                } else {
                    log_flared |= bit;
                }
            }
            Action::Spy { row } => {
                if row < 1 || usize::from(row) > laid {
                    return Err(E::Helpers("a Spy in helpers_played targets a row not laid"));
                }
                log_spied |= 1 << (row - 1);
            }
            _ => {}
        }
    }
    if counted != played {
        return Err(E::Helpers("helpers_played must list every helper counted in played, in order (K-8.1)"));
    }
    if log_scouted != g.scouted || log_spied != g.spied {
        return Err(E::Helpers("the scouted cells and spied rows must be the targets in helpers_played"));
    }
    if log_flared & !g.face_up != 0 || (g.face_up & !g.resolved) & !log_flared != 0 {
        return Err(E::Helpers("the flared cards must be face up, and every face-up card off the route flared"));
    }
    g.log = log;
    g.hand = hand;
    g.played = played;
    g.hand_count = hand_total as u8;
    for k in 0..6 {
        g.deck[k] = comp[k] - hand[k];
    }
    Ok(g)
}

impl From<Korovan> for KorovanSetup {
    fn from(g: Korovan) -> KorovanSetup {
        g.to_setup()
    }
}

impl TryFrom<KorovanSetup> for Korovan {
    type Error = KorovanError;
    fn try_from(s: KorovanSetup) -> Result<Korovan, KorovanError> {
        Korovan::from_setup(&s)
    }
}

impl Serialize for Korovan {
    /// A state serializes as its [`KorovanSetup`].
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_setup().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Korovan {
    /// A state deserializes from a [`KorovanSetup`], validated by
    /// [`Korovan::from_setup`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let setup = KorovanSetup::deserialize(deserializer)?;
        Korovan::from_setup(&setup).map_err(serde::de::Error::custom)
    }
}
