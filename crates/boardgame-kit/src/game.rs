//! The [`Game`] trait: the contract every engine speaks.

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::ops::Deref;
use std::str::FromStr;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::GameRng;

/// A stable integer id of an action, in `0..G::num_distinct_actions(config)`.
pub type ActionId = u32;

/// Whose decision a state waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Turn {
    /// Seat `p` (0-based) must choose one of the legal actions.
    Player(usize),
    /// A chance node: one of [`Game::chance_outcomes`] happens, with its
    /// probability. Chance outcomes are actions with ids like any other.
    Chance,
    /// The game is over; [`Game::outcome`] is `Some`.
    Terminal,
}

/// A set of seats (at most 16: seats `0..16`).
///
/// Built with [`Seats::with`], collected from seats, or from its bitmask
/// ([`Seats::from_bits`], bit `s` for seat `s`); read with
/// [`Seats::contains`], [`Seats::iter`] (or `for seat in seats`) and
/// [`Seats::bits`]. It serializes as its bitmask, a number.
///
/// ```
/// use boardgame_kit::Seats;
/// let seats: Seats = [1, 4].into_iter().collect();
/// assert_eq!(seats, Seats::EMPTY.with(1).with(4));
/// assert_eq!(seats.bits(), 0b1_0010);
/// assert_eq!(Seats::from_bits(0b1_0010), seats);
/// assert_eq!(seats.iter().collect::<Vec<_>>(), [1, 4]);
/// assert!(seats.contains(4) && !seats.contains(0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Seats(u16);

impl Seats {
    /// The empty set.
    pub const EMPTY: Seats = Seats(0);

    /// The set whose bitmask is `bits`: seat `s` is in it when bit `s` is set.
    pub const fn from_bits(bits: u16) -> Seats {
        Seats(bits)
    }

    /// The bitmask of the set: bit `s` is set when seat `s` is in it.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The set with `seat` added (seats of 16 and above are ignored).
    #[must_use]
    pub fn with(self, seat: usize) -> Seats {
        if seat < 16 { Seats(self.0 | (1 << seat)) } else { self }
    }

    /// Whether `seat` is in the set.
    pub fn contains(self, seat: usize) -> bool {
        seat < 16 && self.0 & (1 << seat) != 0
    }

    /// The number of seats in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The seats in increasing order.
    pub fn iter(self) -> SeatsIter {
        SeatsIter(self.0)
    }
}

/// The seats of a [`Seats`] in increasing order ([`Seats::iter`]).
#[derive(Clone, Debug)]
pub struct SeatsIter(u16);

impl Iterator for SeatsIter {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let seat = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(seat)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SeatsIter {}

impl IntoIterator for Seats {
    type Item = usize;
    type IntoIter = SeatsIter;

    fn into_iter(self) -> SeatsIter {
        self.iter()
    }
}

/// Seats of 16 and above are ignored, as by [`Seats::with`].
impl FromIterator<usize> for Seats {
    fn from_iter<I: IntoIterator<Item = usize>>(seats: I) -> Seats {
        seats.into_iter().fold(Seats::EMPTY, Seats::with)
    }
}

/// For people: `seat 2`, `seats 1, 4`, `no seat` (seats numbered from 0, as
/// everywhere in the API).
///
/// ```
/// use boardgame_kit::Seats;
/// assert_eq!(Seats::EMPTY.with(1).with(4).to_string(), "seats 1, 4");
/// assert_eq!(Seats::EMPTY.with(2).to_string(), "seat 2");
/// assert_eq!(Seats::EMPTY.to_string(), "no seat");
/// ```
impl Display for Seats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.len() {
            0 => return f.write_str("no seat"),
            1 => f.write_str("seat ")?,
            _ => f.write_str("seats ")?,
        }
        for (i, seat) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{seat}")?;
        }
        Ok(())
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// One seat won alone.
    Winner(usize),
    /// The game is a draw among these seats (the others lost).
    Draw(Seats),
}

/// For people (seats numbered from 0): `seat 2 wins`, `draw between seats
/// 1, 4`; a draw of one seat (which [`Outcome::from_seats`] never makes) is
/// `draw, seat 1 alone`, a draw of none (every seat lost) `draw, no seat
/// wins`.
///
/// ```
/// use boardgame_kit::{Outcome, Seats};
/// assert_eq!(Outcome::Winner(2).to_string(), "seat 2 wins");
/// let draw = Outcome::Draw(Seats::EMPTY.with(1).with(4));
/// assert_eq!(draw.to_string(), "draw between seats 1, 4");
/// ```
impl Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Outcome::Winner(seat) => write!(f, "seat {seat} wins"),
            Outcome::Draw(seats) => match seats.len() {
                0 => f.write_str("draw, no seat wins"),
                1 => write!(f, "draw, {seats} alone"),
                _ => write!(f, "draw between {seats}"),
            },
        }
    }
}

impl Outcome {
    /// Whether `seat` won or shares the draw.
    pub fn is_winner(&self, seat: usize) -> bool {
        match *self {
            Outcome::Winner(w) => w == seat,
            Outcome::Draw(s) => s.contains(seat),
        }
    }

    /// The seats that won or share the draw.
    pub fn winners(&self) -> Seats {
        match *self {
            Outcome::Winner(w) => Seats::EMPTY.with(w),
            Outcome::Draw(s) => s,
        }
    }

    /// The outcome in which exactly `seats` won: [`Outcome::Winner`] for one
    /// seat, [`Outcome::Draw`] for several, `None` for none.
    ///
    /// ```
    /// use boardgame_kit::{Outcome, Seats};
    /// assert_eq!(Outcome::from_seats(Seats::EMPTY.with(2)), Some(Outcome::Winner(2)));
    /// assert_eq!(Outcome::from_seats(Seats::from_bits(0b101)), Some(Outcome::Draw(Seats::from_bits(0b101))));
    /// assert_eq!(Outcome::from_seats(Seats::EMPTY), None);
    /// ```
    pub fn from_seats(seats: Seats) -> Option<Outcome> {
        match seats.len() {
            0 => None,
            1 => Some(Outcome::Winner(seats.0.trailing_zeros() as usize)),
            _ => Some(Outcome::Draw(seats)),
        }
    }

    /// The outcome that gives the game to the seats with the highest value of
    /// `scores` (seat `s` has `scores[s]`; seats from 16 on are ignored): one
    /// seat wins alone, a shared maximum is a draw among those seats. `None`
    /// for no scores.
    ///
    /// ```
    /// use boardgame_kit::{Outcome, Seats};
    /// assert_eq!(Outcome::from_best(&[3, 7, 5]), Some(Outcome::Winner(1)));
    /// assert_eq!(Outcome::from_best(&[7, 2, 7]), Some(Outcome::Draw(Seats::from_bits(0b101))));
    /// assert_eq!(Outcome::from_best::<i32>(&[]), None);
    /// ```
    pub fn from_best<T: Ord + Copy>(scores: &[T]) -> Option<Outcome> {
        let scores = &scores[..scores.len().min(16)];
        let best = scores.iter().copied().max()?;
        let mut seats = Seats::EMPTY;
        for (s, &v) in scores.iter().enumerate() {
            if v == best {
                seats = seats.with(s);
            }
        }
        Outcome::from_seats(seats)
    }
}

/// Who looks at a game: a seat, or a spectator who sees only what is public.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Viewer {
    /// The player in this seat (0-based).
    Seat(usize),
    /// Someone at no seat: sees only what the rules make public.
    Spectator,
}

impl Viewer {
    /// The seat, for a [`Viewer::Seat`].
    pub fn seat(self) -> Option<usize> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        }
    }
}

/// Every error of an engine: one shape for all engines, generic over the
/// engine's own parts — its action `A`, its reason an action is illegal `R`,
/// its configuration error `C` and its setup (hand-made position) error `S`.
/// Engines name it with a type alias (`KorovanError`, `CaravanError`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError<A, R, C, S>
where
    A: Display + Debug,
    R: std::error::Error + 'static,
    C: std::error::Error + 'static,
    S: std::error::Error + 'static,
{
    /// The configuration breaks the rules.
    #[error("invalid configuration: {0}")]
    Config(#[source] C),
    /// A hand-made position breaks the rules' invariants.
    #[error("invalid position: {0}")]
    Setup(#[source] S),
    /// The action is not legal now.
    #[error("illegal action `{action}`: {reason}")]
    Illegal {
        /// The action tried.
        action: A,
        /// Why it is illegal.
        #[source]
        reason: R,
    },
    /// The id is outside the action space.
    #[error("unknown action id {id} (the action space has {num_ids} ids)")]
    UnknownId {
        /// The id asked for.
        id: ActionId,
        /// The size of the action space.
        num_ids: usize,
    },
    /// The text is not an action in the engine's notation.
    #[error("cannot parse {text:?} as an action (expected {expected})")]
    Notation {
        /// The text given.
        text: String,
        /// What the notation looks like, in words and examples.
        expected: &'static str,
    },
    /// The seat does not exist.
    #[error("seat {seat} does not exist ({players} players)")]
    Seat {
        /// The seat asked for.
        seat: usize,
        /// The number of players.
        players: usize,
    },
    /// A caller-provided buffer of the wrong length.
    #[error("buffer has length {found}, expected {expected}")]
    Buffer {
        /// The buffer's length.
        found: usize,
        /// The length expected.
        expected: usize,
    },
}

/// One outcome of a chance node. Its probability is the **exact rational**
/// `weight / total`, where `total` is the sum of the weights of every outcome
/// the node lists; [`ChanceOutcome::probability`] gives it as `f64`.
/// Integer weights make sampling exact and portable (no float rounding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChanceOutcome<A> {
    /// The action that realises this outcome.
    pub action: A,
    /// Its weight (always positive in a listed outcome).
    pub weight: u32,
}

impl<A> ChanceOutcome<A> {
    /// This outcome's probability within `outcomes` (the full list of its node).
    pub fn probability(&self, outcomes: &[ChanceOutcome<A>]) -> f64 {
        let total: u64 = outcomes.iter().map(|o| u64::from(o.weight)).sum();
        if total == 0 { 0.0 } else { f64::from(self.weight) / total as f64 }
    }
}

/// A caller-owned, fixed-capacity list that engines write actions into, so
/// that generating legal actions never allocates. Implemented for
/// `arrayvec::ArrayVec<T, N>`; engines size `N` by a commented worst case.
pub trait ActionBuffer<T>: Default + Clone + Debug + Deref<Target = [T]> + Send + Sync {
    /// Removes every element.
    fn clear(&mut self);
    /// Appends `item`. Engines never exceed the capacity they chose.
    fn push(&mut self, item: T);
    /// The fixed capacity.
    fn capacity(&self) -> usize;
}

impl<T: Clone + Debug + Send + Sync, const N: usize> ActionBuffer<T> for ArrayVec<T, N> {
    #[inline]
    fn clear(&mut self) {
        ArrayVec::clear(self)
    }
    #[inline]
    fn push(&mut self, item: T) {
        ArrayVec::push(self, item)
    }
    #[inline]
    fn capacity(&self) -> usize {
        N
    }
}

/// A game engine: the state of one game, with its rules.
///
/// Static facts (action-space size, tensor shape, length bound) are functions
/// of the configuration; everything else is a method of the state. A state
/// is plain data: it holds no random generator, so cloning it never reveals
/// the future; chance is explicit ([`Turn::Chance`]).
///
/// # The game loop
///
/// ```
/// use boardgame_kit::{Game, GameRng, Turn, testgame::HiddenNim};
///
/// let config = Default::default();
/// let mut state = HiddenNim::new_game(&config).expect("valid config");
/// let mut rng = GameRng::new(2024);
/// let mut actions = <HiddenNim as Game>::ActionList::default();
/// let mut chances = <HiddenNim as Game>::ChanceList::default();
/// loop {
///     match state.turn() {
///         Turn::Terminal => break,
///         Turn::Chance => {
///             state.chance_outcomes(&mut chances);
///             let weights: Vec<u32> = chances.iter().map(|o| o.weight).collect();
///             let pick = rng.weighted(&weights).unwrap();
///             state.apply(chances[pick].action).unwrap();
///         }
///         Turn::Player(_seat) => {
///             state.legal_actions(&mut actions);
///             let pick = rng.index(actions.len());
///             state.apply(actions[pick]).unwrap();
///         }
///     }
/// }
/// println!("{:?}", state.outcome().unwrap());
/// ```
pub trait Game: Clone + Debug + PartialEq + Send + Sync + Sized + 'static {
    /// The game's configuration (players and variants), validated by
    /// [`Game::new_game`]; `Default` is the rules' default.
    type Config: Clone + Debug + PartialEq + Default + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// An action (decision or chance outcome). `Display`/`FromStr` give the
    /// human notation; [`Game::action_id`] the stable integer id.
    type Action: Copy + Eq + Hash + Debug + Display + FromStr<Err = Self::Error> + Send + Sync + 'static;
    /// The fixed-capacity list legal actions are written into.
    type ActionList: ActionBuffer<Self::Action>;
    /// The fixed-capacity list chance outcomes are written into.
    type ChanceList: ActionBuffer<ChanceOutcome<Self::Action>>;
    /// What one player may know of the state, typed.
    type Observation: Clone + Debug + PartialEq + Send + Sync;
    /// The engine's error: bad configs, illegal actions, unknown ids,
    /// malformed notation, bad seats.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The engine's name, as written into records (`"korovan"`).
    const NAME: &'static str;
    /// The version of the rules the engine implements; a record written under
    /// another version is refused.
    const RULES_VERSION: u32;

    /// The initial state for `config`.
    ///
    /// # Errors
    /// When the configuration breaks the rules (players out of range, …).
    fn new_game(config: &Self::Config) -> Result<Self, Self::Error>;

    /// The configuration this game was created with.
    fn config(&self) -> &Self::Config;

    /// The number of players (seats `0..n`).
    fn num_players(&self) -> usize;

    /// Whose decision the state waits for.
    fn turn(&self) -> Turn;

    /// Writes the legal actions into `out` (cleared first). At a player's
    /// turn these are the player's choices; at a terminal state, none. Never
    /// allocates.
    ///
    /// **At a chance node** they are the actions of the chance outcomes —
    /// the same actions [`Game::chance_outcomes`] lists (the conformance
    /// suite checks it), without their weights. This is deliberate and is
    /// what OpenSpiel's `legal_actions` does at a chance node: [`crate::perft`]
    /// counts chance branches through it, [`legal_action_mask`] marks them,
    /// and the Python binding's OpenSpiel-shaped `legal_actions` is this
    /// list. The probabilities are only in [`Game::chance_outcomes`], the
    /// one way to chance that respects them ([`Game::sample_chance_outcome`]
    /// draws by them); check [`Game::turn`] before choosing from this list,
    /// since a uniform pick at a chance node ignores the weights.
    ///
    /// ```
    /// use boardgame_kit::{Game, Turn, testgame::HiddenNim};
    ///
    /// let state = HiddenNim::new_game(&Default::default()).unwrap();
    /// assert_eq!(state.turn(), Turn::Chance); // the deal
    /// let mut chances = <HiddenNim as Game>::ChanceList::default();
    /// state.chance_outcomes(&mut chances); // the outcomes with their weights
    /// let mut actions = <HiddenNim as Game>::ActionList::default();
    /// state.legal_actions(&mut actions); // the same actions, no weights
    /// assert!(!chances.is_empty() && chances.iter().all(|o| o.weight > 0));
    /// assert_eq!(actions.len(), chances.len());
    /// assert!(chances.iter().all(|o| actions.contains(&o.action)));
    /// let total: f64 = chances.iter().map(|o| o.probability(&chances)).sum();
    /// assert!((total - 1.0).abs() < 1e-12);
    /// ```
    fn legal_actions(&self, out: &mut Self::ActionList);

    /// Writes the outcomes of a chance node into `out` (cleared first), each
    /// with a positive weight: the one place a chance node's probabilities
    /// are ([`Game::legal_actions`] lists the same actions without them).
    /// Empty unless `turn()` is [`Turn::Chance`].
    fn chance_outcomes(&self, out: &mut Self::ChanceList);

    /// A uniformly random legal action at a player's turn, drawn from `rng`
    /// — **exactly** `list[rng.index(list.len())]` for the list
    /// [`Game::legal_actions`] writes (same action, same draws), `None` when
    /// nothing is legal. The default does just that; an engine may override
    /// it with a faster way to the same action (count the legal actions,
    /// draw the index, decode the index-th action without writing the
    /// others). [`crate::playout`], [`crate::RandomAgent`] and rollouts use
    /// it. Never allocates.
    fn random_legal_action(&self, rng: &mut GameRng) -> Option<Self::Action> {
        let mut list = Self::ActionList::default();
        self.legal_actions(&mut list);
        list.get(rng.index(list.len())).copied()
    }

    /// An outcome of this chance node drawn by its exact weights — exactly
    /// what [`sample_chance`] draws (same outcome, same draws), `None` when
    /// the state is no chance node. Engines may override it with a faster
    /// way to the same outcome. Never allocates.
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Option<Self::Action> {
        let mut outcomes = Self::ChanceList::default();
        sample_chance(self, rng, &mut outcomes)
    }

    /// Checks that `action` is legal now, with an error that says why not.
    ///
    /// # Errors
    /// When the action is illegal in this state.
    fn validate(&self, action: Self::Action) -> Result<(), Self::Error>;

    /// Plays `action` (a decision or a chance outcome) after validating it.
    ///
    /// # Errors
    /// When the action is illegal; the state is then left exactly as it was.
    fn apply(&mut self, action: Self::Action) -> Result<(), Self::Error> {
        self.validate(action)?;
        self.apply_unchecked(action);
        Ok(())
    }

    /// Plays `action` without validating it: the fast path for search over
    /// actions taken from [`Game::legal_actions`]/[`Game::chance_outcomes`].
    /// An illegal action leaves the state meaningless (but never causes
    /// undefined behaviour).
    fn apply_unchecked(&mut self, action: Self::Action);

    /// Whether `action` is legal now.
    fn is_legal(&self, action: Self::Action) -> bool {
        self.validate(action).is_ok()
    }

    /// The result, once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// The game score of `seat` now (cows, points). 0 for seats out of range.
    fn score(&self, seat: usize) -> i32;

    /// Per-seat returns for agents, written into `out` (`out.len()` should be
    /// the number of players; extra entries are set to 0): 1 for a sole
    /// winner, `1/k` for each of `k` seats sharing a draw, 0 otherwise; all 0
    /// while the game goes on.
    fn returns(&self, out: &mut [f64]) {
        out.iter_mut().for_each(|r| *r = 0.0);
        if let Some(outcome) = self.outcome() {
            let winners = outcome.winners();
            let share = 1.0 / winners.len().max(1) as f64;
            for s in winners.iter() {
                if let Some(r) = out.get_mut(s) {
                    *r = share;
                }
            }
        }
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.turn() == Turn::Terminal
    }

    /// The size of the action space: every id is in `0..num_distinct_actions`.
    fn num_distinct_actions(config: &Self::Config) -> usize;

    /// An upper bound on the number of actions (chance outcomes included) of
    /// any game with this configuration.
    fn max_game_length(config: &Self::Config) -> usize;

    /// The stable id of `action` under `config`.
    fn action_id(config: &Self::Config, action: Self::Action) -> ActionId;

    /// The action with id `id` under `config`.
    ///
    /// # Errors
    /// When `id` is not below [`Game::num_distinct_actions`].
    fn action_from_id(config: &Self::Config, id: ActionId) -> Result<Self::Action, Self::Error>;

    /// What `seat` may know of the state, typed.
    ///
    /// # Errors
    /// When `seat` is not a seat of this game.
    fn observation(&self, seat: usize) -> Result<Self::Observation, Self::Error>;

    /// What a spectator may know, as an observation, where the game has one:
    /// in a game of perfect information every seat's observation holds only
    /// public knowledge, so it is the spectator's too. `None` (the default)
    /// when every observation holds some seat's private knowledge.
    fn public_observation(&self) -> Option<Self::Observation> {
        None
    }

    /// The shape of the observation tensor for `config` (its product is
    /// [`Game::observation_tensor_len`]).
    fn observation_tensor_shape(config: &Self::Config) -> Vec<usize>;

    /// The length of the flat observation tensor for `config`.
    fn observation_tensor_len(config: &Self::Config) -> usize {
        Self::observation_tensor_shape(config).iter().product()
    }

    /// Writes `seat`'s observation as a flat `f32` tensor into `out`, without
    /// allocating. It depends on the observation alone.
    ///
    /// # Errors
    /// When `seat` is not a seat or `out.len()` is not the tensor length.
    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), Self::Error>;

    /// The bounds of every entry of the observation tensor for `config`:
    /// `(low, high)`, each of [`Game::observation_tensor_len`] entries, such
    /// that every tensor written for any seat of any state reached by play
    /// lies within them (`low[i] <= x[i] <= high[i]`). `None` (the default)
    /// when the game does not state them. The Python environments declare
    /// their observation spaces with these bounds, and the kit's conformance
    /// check tests them.
    fn observation_tensor_bounds(_config: &Self::Config) -> Option<(Vec<f32>, Vec<f32>)> {
        None
    }

    /// What `viewer` learns of `action` when it is played in this state (call
    /// it before applying the action): `Some(action)` when the viewer learns
    /// which action it was, `None` when the action is hidden from them (they
    /// learn only that the player to move, or chance, acted). This is what a
    /// game log shows each seat and each spectator; it must agree with
    /// [`Game::observation`] (a seat learns an action exactly when its
    /// observation can tell it from the other legal actions).
    fn view_action(&self, viewer: Viewer, action: Self::Action) -> Option<Self::Action>;

    /// A full state sampled uniformly enough for information-set search from
    /// the states consistent with what `observer` knows: its observation of
    /// the result equals its observation of `self`. Games of perfect
    /// information return a copy.
    ///
    /// # Errors
    /// When `observer` is not a seat.
    fn determinize(&self, observer: usize, rng: &mut GameRng) -> Result<Self, Self::Error>;
}

/// Writes the legal-action mask of `state` into `mask` (`true` at the id of
/// every legal action), without allocating. Returns the number of legal
/// actions.
///
/// # Errors
/// [`MaskError`] when `mask.len()` is not `G::num_distinct_actions`.
pub fn legal_action_mask<G: Game>(state: &G, mask: &mut [bool]) -> Result<usize, MaskError> {
    let expected = G::num_distinct_actions(state.config());
    if mask.len() != expected {
        return Err(MaskError { expected, found: mask.len() });
    }
    mask.iter_mut().for_each(|m| *m = false);
    let mut list = G::ActionList::default();
    state.legal_actions(&mut list);
    for &a in list.iter() {
        if let Some(m) = mask.get_mut(G::action_id(state.config(), a) as usize) {
            *m = true;
        }
    }
    Ok(list.len())
}

/// A legal-action mask buffer of the wrong length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("mask has length {found}, the action space has {expected} ids")]
pub struct MaskError {
    /// The action-space size.
    pub expected: usize,
    /// The buffer's length.
    pub found: usize,
}

/// Writes the actions of `state`'s chance outcomes into `out` (cleared
/// first): what [`Game::legal_actions`] lists at a chance node. Nothing when
/// `state` is not a chance node. Never allocates.
pub fn chance_actions<G: Game>(state: &G, out: &mut G::ActionList) {
    out.clear();
    let mut outcomes = G::ChanceList::default();
    state.chance_outcomes(&mut outcomes);
    for o in outcomes.iter() {
        out.push(o.action);
    }
}

/// Samples a chance outcome of `state` (a chance node) from `rng`, exactly by
/// the outcome weights. `None` when `state` is not a chance node.
pub fn sample_chance<G: Game>(state: &G, rng: &mut GameRng, buf: &mut G::ChanceList) -> Option<G::Action> {
    state.chance_outcomes(buf);
    rng.weighted_by(buf.iter().map(|o| u64::from(o.weight))).map(|i| buf[i].action)
}
