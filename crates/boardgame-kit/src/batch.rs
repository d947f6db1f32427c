//! [`Batch`]: many independent games of one engine, stepped together.
//!
//! A learner steps thousands of games per call and reads observations, legal
//! actions, rewards and done flags from contiguous arrays. A [`Batch`] holds
//! `N` games of one configuration; [`Batch::step`] takes one action id per
//! game (for the player to move in that game), plays it, resolves the chance
//! nodes that follow from the game's own chance stream, restarts finished
//! games, and writes what the next decision needs into a [`BatchOut`].
//!
//! # Invariant
//!
//! Between calls every game waits for a player's decision: chance nodes are
//! resolved inside, and a game that ends is reported (`done`, final returns)
//! and replaced by the next game of its slot in the same call. (A game that
//! chance alone ends before any decision is skipped for the slot's next
//! seed; see [`MAX_SKIPPED`].)
//!
//! # Seeds and reproducibility
//!
//! The batch seed `s` and the number of games `N` fix every game: slot `i`
//! plays its games from the seeds `s + i`, `s + i + N`, `s + i + 2N`, … (the
//! `e`-th game of slot `i`, counted from 0, has seed
//! `s + i + e·N`, wrapping on overflow; [`Batch::game_seed`]). So once every
//! slot has finished `e` games, every seed of `s .. s + e·N` has been used
//! (a contiguous seed range, like a `simulate --shard`'s), and no slot's
//! seed depends on when other slots finish — which is what makes the results
//! the same for any number of threads.
//!
//! A game of seed `g` draws its chance outcomes from
//! `GameRng::new(g).child(CHANCE_STREAM)` with [`sample_chance`], the
//! kit's stream convention. So a batch is reproducible from
//! `(s, N, actions)`, and a game of the batch equals the game that
//! [`Driver::new`](crate::Driver::new)`(config, g)` plays when its chance
//! nodes are resolved by [`Driver::step_chance`](crate::Driver::step_chance)
//! and the same decisions are given to [`Driver::apply`](crate::Driver::apply).
//!
//! # Outputs
//!
//! [`BatchOut`] is a set of caller-provided, contiguous, row-major slices
//! (one row per game), so that a front end can hand over memory it owns (a
//! numpy array, say) and nothing is copied; [`BatchBuffers`] owns a set of
//! them for Rust callers. Per game:
//!
//! * `player` — the seat to move (`u32`);
//! * `obs` — that seat's observation tensor ([`Game::write_observation_tensor`]);
//! * `legal_count` — the number of legal actions;
//! * `legal_mask` — a dense `u8` mask over the whole action space (1 at every
//!   legal id), and/or
//! * `legal_ids` — the legal ids in the engine's order, padded to
//!   [`Batch::max_legal`] with [`PAD_ID`];
//! * `rewards` — one `f32` per seat: 0 unless the game ended in this step,
//!   then its final returns ([`Game::returns`]: 1 for a sole winner, `1/k`
//!   for each of `k` seats sharing a draw, 0 otherwise);
//! * `done` — 1 if the game ended in this step (the row then already shows
//!   the slot's next game), else 0.
//!
//! `obs`, `legal_mask` and `legal_ids` may be empty slices, meaning "not
//! wanted" (nothing is computed for them); every other slice must have its
//! full length. **Legal actions: which format.** A dense mask costs one byte
//! per id per game and step; that is the right format for small action spaces
//! (Korovan: 103 ids), and wasteful for large ones (Caravan: ~42 000 ids, of
//! which a few hundred are legal at most). [`LegalFormat::for_actions`]
//! picks the mask up to [`DENSE_MASK_LIMIT`] ids and the padded id list
//! above; [`BatchBuffers::new`] follows it; both formats may be requested
//! ([`LegalFormat::Both`]).
//!
//! # Errors
//!
//! [`Batch::step`] validates every action before it plays any: an unknown or
//! illegal id is a [`BatchError::Action`] naming the game, and then no game
//! of the batch has advanced.
//!
//! # Threads and allocation
//!
//! With [`Batch::with_threads`] the games are cut into that many contiguous
//! chunks stepped on scoped threads; results do not depend on the number of
//! threads. With one thread a step performs no heap allocation; with several,
//! spawning the scoped threads allocates (thread bookkeeping), the stepping
//! itself does not. Threads pay only for large batches (hundreds of games).
//!
//! ```
//! use boardgame_kit::{Batch, BatchBuffers, GameRng, LegalFormat, testgame::HiddenNim};
//! let n = 4;
//! let mut batch = Batch::<HiddenNim>::new(&Default::default(), n, 7).unwrap();
//! let mut out = BatchBuffers::with_format(&batch, LegalFormat::Ids, true);
//! batch.observe(&mut out.view()).unwrap();
//! let mut policy = GameRng::new(1);
//! let mut finished = 0;
//! for _ in 0..20 {
//!     // a uniformly random legal action in every game
//!     let actions: Vec<u32> = (0..n).map(|g| out.legal_ids(g)[policy.index(out.legal_ids(g).len())]).collect();
//!     batch.step(&actions, &mut out.view()).unwrap();
//!     finished += out.done.iter().filter(|&&d| d == 1).count();
//! }
//! // HiddenNim's 5 stones take at most 5 decisions: every slot finished games
//! assert!(finished >= n * 20 / 5);
//! ```

use crate::{ActionBuffer, ActionId, CHANCE_STREAM, Game, GameRng, Turn, sample_chance};
use std::sync::Mutex;

/// The largest action space for which [`LegalFormat::for_actions`] chooses a
/// dense mask.
pub const DENSE_MASK_LIMIT: usize = 4096;

/// The value that pads a game's row of `legal_ids` after its legal ids
/// (`u32::MAX`, read as `-1` through a signed 32-bit view).
pub const PAD_ID: ActionId = ActionId::MAX;

/// The `player` value of a game that waits for no decision: only after
/// [`MAX_SKIPPED`] games in a row of one slot ended before their first
/// decision (stepping such a game is [`BatchError::NotToMove`]).
pub const NO_PLAYER: u32 = u32::MAX;

/// How many games in a row a slot skips when they end before their first
/// decision (chance alone decided them); each skipped game uses up its seed
/// and counts in [`Batch::finished`], and reports no `done` (no decision of
/// it was ever shown).
pub const MAX_SKIPPED: usize = 64;

/// The most seats a batch supports (the width of [`crate::Seats`]).
pub const MAX_BATCH_SEATS: usize = 16;

/// Which legal-action outputs a [`BatchBuffers`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LegalFormat {
    /// A dense `u8` mask over the action space.
    Mask,
    /// The legal ids, padded with [`PAD_ID`].
    Ids,
    /// Both.
    Both,
}

impl LegalFormat {
    /// The default for an action space of `num_actions` ids: [`LegalFormat::Mask`]
    /// up to [`DENSE_MASK_LIMIT`] ids, [`LegalFormat::Ids`] above.
    pub fn for_actions(num_actions: usize) -> LegalFormat {
        if num_actions <= DENSE_MASK_LIMIT { LegalFormat::Mask } else { LegalFormat::Ids }
    }

    /// Whether the mask is carried.
    pub fn mask(self) -> bool {
        matches!(self, LegalFormat::Mask | LegalFormat::Both)
    }

    /// Whether the id list is carried.
    pub fn ids(self) -> bool {
        matches!(self, LegalFormat::Ids | LegalFormat::Both)
    }
}

/// Why a batch could not be built or stepped.
#[derive(Debug, thiserror::Error)]
pub enum BatchError<E: std::error::Error + 'static> {
    /// The configuration did not validate.
    #[error("invalid configuration: {0}")]
    Config(#[source] E),
    /// A batch of zero games was asked for.
    #[error("a batch needs at least one game")]
    NoGames,
    /// The game has more seats than a batch supports.
    #[error("a batch supports at most {MAX_BATCH_SEATS} seats, the game has {0}")]
    TooManySeats(usize),
    /// The memory for the games could not be had: more than the address
    /// space holds (`bytes` is then `None`), or refused by the system.
    #[error("cannot allocate a batch of {games} games ({})", .bytes.map_or_else(|| "more bytes than the address space holds".to_string(), |b| format!("{b} bytes of game states")))]
    OutOfMemory {
        /// The games asked for.
        games: usize,
        /// The bytes their states need ([`Batch::bytes_for`]).
        bytes: Option<usize>,
    },
    /// The number of actions differs from the number of games.
    #[error("{found} actions were given for a batch of {expected} games")]
    ActionCount {
        /// Actions given.
        found: usize,
        /// Games of the batch.
        expected: usize,
    },
    /// The action id given for game `game` is unknown or illegal there; no
    /// game of the batch was advanced.
    #[error("game {game}: action id {id} refused: {source}")]
    Action {
        /// The index of the game in the batch.
        game: usize,
        /// The id given.
        id: ActionId,
        /// The engine's reason.
        #[source]
        source: E,
    },
    /// Game `game` waits for no player's decision (see [`NO_PLAYER`]); no
    /// game of the batch was advanced.
    #[error("game {game} waits for no player's decision")]
    NotToMove {
        /// The index of the game in the batch.
        game: usize,
    },
    /// An output slice has the wrong length.
    #[error("output `{name}` has length {found}, expected {expected}{}", .optional.then_some(" (or 0 to skip it)").unwrap_or_default())]
    Buffer {
        /// The field of [`BatchOut`].
        name: &'static str,
        /// Its length.
        found: usize,
        /// The length it must have.
        expected: usize,
        /// Whether an empty slice would have been accepted.
        optional: bool,
    },
}

/// The caller-provided outputs of [`Batch::step`] and [`Batch::observe`]:
/// one row per game, rows contiguous (row-major). Lengths, for `N` games:
/// `player`, `legal_count`, `done`: `N`; `obs`: `N ×`
/// [`Batch::observation_len`] or 0; `legal_mask`: `N ×`
/// [`Batch::num_actions`] or 0; `legal_ids`: `N ×` [`Batch::max_legal`] or
/// 0; `rewards`: `N ×` [`Batch::num_players`]. See the [module
/// documentation](crate::batch) for what each holds.
#[derive(Debug)]
pub struct BatchOut<'a> {
    /// The seat to move in each game.
    pub player: &'a mut [u32],
    /// The observation tensor of the seat to move (empty: not written).
    pub obs: &'a mut [f32],
    /// The number of legal actions of each game.
    pub legal_count: &'a mut [u32],
    /// Dense legal masks, 1 at every legal id (empty: not written).
    pub legal_mask: &'a mut [u8],
    /// Legal ids padded with [`PAD_ID`] (empty: not written).
    pub legal_ids: &'a mut [ActionId],
    /// Per-seat rewards of this step (final returns where a game ended).
    pub rewards: &'a mut [f32],
    /// 1 where a game ended in this step (and was restarted), else 0.
    pub done: &'a mut [u8],
}

/// Row widths of the outputs (0 for a skipped optional output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Widths {
    obs: usize,
    mask: usize,
    ids: usize,
    rewards: usize,
}

impl<'a> BatchOut<'a> {
    /// Cuts off the first `games` rows.
    fn split(self, games: usize, w: Widths) -> (BatchOut<'a>, BatchOut<'a>) {
        let (player, player_rest) = self.player.split_at_mut(games);
        let (obs, obs_rest) = self.obs.split_at_mut(games * w.obs);
        let (legal_count, legal_count_rest) = self.legal_count.split_at_mut(games);
        let (legal_mask, legal_mask_rest) = self.legal_mask.split_at_mut(games * w.mask);
        let (legal_ids, legal_ids_rest) = self.legal_ids.split_at_mut(games * w.ids);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(games * w.rewards);
        let (done, done_rest) = self.done.split_at_mut(games);
        (
            BatchOut { player, obs, legal_count, legal_mask, legal_ids, rewards, done },
            BatchOut {
                player: player_rest,
                obs: obs_rest,
                legal_count: legal_count_rest,
                legal_mask: legal_mask_rest,
                legal_ids: legal_ids_rest,
                rewards: rewards_rest,
                done: done_rest,
            },
        )
    }

    fn reborrow(&mut self) -> BatchOut<'_> {
        BatchOut {
            player: self.player,
            obs: self.obs,
            legal_count: self.legal_count,
            legal_mask: self.legal_mask,
            legal_ids: self.legal_ids,
            rewards: self.rewards,
            done: self.done,
        }
    }
}

/// The index of the `k`-th (from 0) set byte of a 0/1 `mask`, eight bytes
/// at a time (a set byte is one set bit, so a word's popcount counts them);
/// 0 when there are not that many.
fn kth_set(mask: &[u8], mut k: u32) -> usize {
    let mut chunks = mask.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let ones = word.count_ones();
        if k < ones {
            for _ in 0..k {
                word &= word - 1;
            }
            return base + (word.trailing_zeros() / 8) as usize;
        }
        k -= ones;
        base += 8;
    }
    let tail = chunks.remainder().iter().enumerate().filter(|&(_, &m)| m != 0);
    tail.map(|(i, _)| base + i).nth(k as usize).unwrap_or(0)
}

/// Owned output buffers for a batch, sized at construction (stepping never
/// reallocates them). [`BatchBuffers::view`] lends them as a [`BatchOut`].
#[derive(Clone, Debug, PartialEq)]
pub struct BatchBuffers {
    /// See [`BatchOut::player`].
    pub player: Vec<u32>,
    /// See [`BatchOut::obs`].
    pub obs: Vec<f32>,
    /// See [`BatchOut::legal_count`].
    pub legal_count: Vec<u32>,
    /// See [`BatchOut::legal_mask`] (empty unless the format has the mask).
    pub legal_mask: Vec<u8>,
    /// See [`BatchOut::legal_ids`] (empty unless the format has the ids).
    pub legal_ids: Vec<ActionId>,
    /// See [`BatchOut::rewards`].
    pub rewards: Vec<f32>,
    /// See [`BatchOut::done`].
    pub done: Vec<u8>,
    widths: Widths,
}

impl BatchBuffers {
    /// Buffers for `batch` with the default legal format
    /// ([`LegalFormat::for_actions`]) and observations.
    pub fn new<G: Game>(batch: &Batch<G>) -> BatchBuffers {
        BatchBuffers::with_format(batch, LegalFormat::for_actions(batch.num_actions()), true)
    }

    /// Buffers for `batch` with the legal outputs of `format`, and the
    /// observations only if `observations`.
    pub fn with_format<G: Game>(batch: &Batch<G>, format: LegalFormat, observations: bool) -> BatchBuffers {
        let n = batch.num_games();
        let widths = Widths {
            obs: if observations { batch.observation_len() } else { 0 },
            mask: if format.mask() { batch.num_actions() } else { 0 },
            ids: if format.ids() { batch.max_legal() } else { 0 },
            rewards: batch.num_players(),
        };
        BatchBuffers {
            player: vec![NO_PLAYER; n],
            obs: vec![0.0; n * widths.obs],
            legal_count: vec![0; n],
            legal_mask: vec![0; n * widths.mask],
            legal_ids: vec![PAD_ID; n * widths.ids],
            rewards: vec![0.0; n * widths.rewards],
            done: vec![0; n],
            widths,
        }
    }

    /// The buffers as a [`BatchOut`].
    pub fn view(&mut self) -> BatchOut<'_> {
        BatchOut {
            player: &mut self.player,
            obs: &mut self.obs,
            legal_count: &mut self.legal_count,
            legal_mask: &mut self.legal_mask,
            legal_ids: &mut self.legal_ids,
            rewards: &mut self.rewards,
            done: &mut self.done,
        }
    }

    /// A uniformly random legal action id for every game (the random policy
    /// of benchmarks and smoke runs), drawn from `rng` over these outputs:
    /// from the padded id list when the buffers carry it, else from the
    /// mask (a game without legal actions gets id 0). Never allocates.
    pub fn random_actions(&self, rng: &mut GameRng, actions: &mut [ActionId]) {
        for (g, a) in actions.iter_mut().enumerate() {
            let count = self.legal_count.get(g).copied().unwrap_or(0);
            let k = rng.below(count);
            *a = if self.widths.ids > 0 {
                Self::row(&self.legal_ids, self.widths.ids, g).get(k as usize).copied().unwrap_or(0)
            } else {
                kth_set(Self::row(&self.legal_mask, self.widths.mask, g), k) as ActionId
            };
        }
    }

    fn row<T>(data: &[T], width: usize, game: usize) -> &[T] {
        data.get(game * width..(game + 1) * width).unwrap_or(&[])
    }

    /// Game `game`'s observation row (empty if not carried or out of range).
    pub fn obs(&self, game: usize) -> &[f32] {
        Self::row(&self.obs, self.widths.obs, game)
    }

    /// Game `game`'s mask row (empty if not carried or out of range).
    pub fn legal_mask(&self, game: usize) -> &[u8] {
        Self::row(&self.legal_mask, self.widths.mask, game)
    }

    /// Game `game`'s legal ids, without the padding (empty if not carried or
    /// out of range).
    pub fn legal_ids(&self, game: usize) -> &[ActionId] {
        let count = self.legal_count.get(game).map_or(0, |&c| c as usize);
        let row = Self::row(&self.legal_ids, self.widths.ids, game);
        &row[..count.min(row.len())]
    }

    /// Game `game`'s rewards, one per seat (empty if out of range).
    pub fn rewards(&self, game: usize) -> &[f32] {
        Self::row(&self.rewards, self.widths.rewards, game)
    }
}

/// The seeds of a batch's slots: slot `i` of `N` plays its `e`-th game
/// (from 0) from seed `s + i + e·N`, wrapping ([`SlotSeeds::game_seed`]),
/// and a game that ends before the decision its slot waits for is skipped
/// for the slot's next seed ([`SlotSeeds::start`]). [`Batch`] and the
/// single-learner batch of `boardgame-sim` both seed their slots by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotSeeds {
    seed: u64,
    games: u64,
}

impl SlotSeeds {
    /// The seeds of a batch of `games` slots from batch seed `seed`.
    pub fn new(seed: u64, games: usize) -> Self {
        SlotSeeds { seed, games: games as u64 }
    }

    /// The batch seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The seed of the `episode`-th game (from 0) of slot `slot`:
    /// `seed + slot + episode · N`, wrapping.
    ///
    /// ```
    /// use boardgame_kit::SlotSeeds;
    /// let seeds = SlotSeeds::new(100, 4);
    /// assert_eq!(seeds.game_seed(1, 0), 101);
    /// assert_eq!(seeds.game_seed(1, 2), 109);
    /// assert_eq!(SlotSeeds::new(u64::MAX, 4).game_seed(1, 0), 0);
    /// ```
    pub fn game_seed(&self, slot: usize, episode: u64) -> u64 {
        self.seed.wrapping_add(slot as u64).wrapping_add(episode.wrapping_mul(self.games))
    }

    /// Starts slot `slot`'s game number `*episode`: `start(seed)` sets the
    /// game of that seed up and says whether it waits for the slot's
    /// decision; while it does not (the game ended first), the game counts
    /// as finished (`*episode` grows by one) and the next seed is tried, at
    /// most [`MAX_SKIPPED`] times in a row.
    ///
    /// ```
    /// use boardgame_kit::SlotSeeds;
    /// let mut episode = 0;
    /// let mut tried = Vec::new();
    /// SlotSeeds::new(10, 3).start(1, &mut episode, |seed| {
    ///     tried.push(seed);
    ///     seed > 15 // the first two games end before a decision
    /// });
    /// assert_eq!((tried, episode), (vec![11, 14, 17], 2));
    /// ```
    pub fn start(&self, slot: usize, episode: &mut u64, mut start: impl FnMut(u64) -> bool) {
        for _ in 0..=MAX_SKIPPED {
            if start(self.game_seed(slot, *episode)) {
                return;
            }
            *episode = episode.wrapping_add(1);
        }
    }
}

/// One game of the batch and its chance stream.
#[derive(Clone, Debug)]
struct Slot<G: Game> {
    state: G,
    chance: GameRng,
    /// The seed of the current game.
    seed: u64,
    /// Games this slot has finished.
    episode: u64,
}

/// A chunk of a threaded step: its first game's index, its slots, their
/// actions (when stepping) and its rows of the outputs.
type Job<'a, G> = (usize, &'a mut [Slot<G>], Option<&'a [<G as Game>::Action]>, BatchOut<'a>);

/// What every chunk needs to step its games (shared, read-only).
struct Shared<'s, G: Game> {
    initial: &'s G,
    seeds: SlotSeeds,
    widths: Widths,
    bound: usize,
}

/// `N` independent games of one engine stepped together; see the [module
/// documentation](crate::batch).
#[derive(Clone, Debug)]
pub struct Batch<G: Game> {
    config: G::Config,
    initial: G,
    slots: Vec<Slot<G>>,
    /// Actions decoded by validation, played by the step (capacity `N`).
    pending: Vec<G::Action>,
    seed: u64,
    games: usize,
    threads: usize,
    players: usize,
    obs_len: usize,
    num_actions: usize,
    max_legal: usize,
}

impl<G: Game> Batch<G> {
    /// `num_games` games of `config`, slot `i` starting from seed
    /// `seed + i`, each resolved to its first decision.
    ///
    /// # Errors
    /// [`BatchError::Config`] for a bad configuration,
    /// [`BatchError::NoGames`] for zero games, [`BatchError::TooManySeats`]
    /// beyond [`MAX_BATCH_SEATS`] seats.
    pub fn new(config: &G::Config, num_games: usize, seed: u64) -> Result<Self, BatchError<G::Error>> {
        let initial = G::new_game(config).map_err(BatchError::Config)?;
        if num_games == 0 {
            return Err(BatchError::NoGames);
        }
        let players = initial.num_players();
        if players > MAX_BATCH_SEATS {
            return Err(BatchError::TooManySeats(players));
        }
        // Reserved fallibly: a batch too large for the memory is an error,
        // not an abort of the process.
        let out_of_memory = || BatchError::OutOfMemory { games: num_games, bytes: Self::bytes_for(num_games) };
        let mut slots = Vec::new();
        slots.try_reserve_exact(num_games).map_err(|_| out_of_memory())?;
        let mut pending = Vec::new();
        pending.try_reserve_exact(num_games).map_err(|_| out_of_memory())?;
        let mut batch = Batch {
            config: config.clone(),
            slots,
            pending,
            seed,
            games: num_games,
            threads: 1,
            players,
            obs_len: G::observation_tensor_len(config),
            num_actions: G::num_distinct_actions(config),
            max_legal: G::ActionList::default().capacity(),
            initial,
        };
        batch.reset(seed);
        Ok(batch)
    }

    /// The same batch stepping on `threads` threads (at least 1).
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Sets the number of threads (at least 1); results do not depend on it.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The number of threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Restarts every game: slot `i` from seed `seed + i`, as a new batch of
    /// seed `seed` would. Call [`Batch::observe`] to read the first decisions.
    pub fn reset(&mut self, seed: u64) {
        self.seed = seed;
        // In place: the slots reserved by `new` are reused, never a second
        // batch's worth of memory.
        let shared = Shared {
            initial: &self.initial,
            seeds: SlotSeeds::new(seed, self.games),
            widths: Widths { obs: 0, mask: 0, ids: 0, rewards: 0 },
            bound: G::max_game_length(&self.config),
        };
        self.slots.truncate(self.games);
        for (i, slot) in self.slots.iter_mut().enumerate() {
            slot.episode = 0;
            shared.start(slot, i);
        }
        for i in self.slots.len()..self.games {
            let mut slot = Slot { state: self.initial.clone(), chance: GameRng::new(0), seed: 0, episode: 0 };
            shared.start(&mut slot, i);
            self.slots.push(slot);
        }
    }

    /// The bytes a batch of `num_games` games of `G` holds for their states
    /// and pending actions (beyond the outputs, which the caller owns);
    /// `None` beyond the address space. [`Batch::new`] reserves them
    /// fallibly ([`BatchError::OutOfMemory`]).
    pub fn bytes_for(num_games: usize) -> Option<usize> {
        num_games.checked_mul(std::mem::size_of::<Slot<G>>() + std::mem::size_of::<G::Action>())
    }

    /// The configuration of every game.
    pub fn config(&self) -> &G::Config {
        &self.config
    }

    /// The number of games `N`.
    pub fn num_games(&self) -> usize {
        self.slots.len()
    }

    /// Seats per game.
    pub fn num_players(&self) -> usize {
        self.players
    }

    /// The length of one observation row ([`Game::observation_tensor_len`]).
    pub fn observation_len(&self) -> usize {
        self.obs_len
    }

    /// The size of the action space ([`Game::num_distinct_actions`]): the
    /// length of one mask row.
    pub fn num_actions(&self) -> usize {
        self.num_actions
    }

    /// The length of one row of legal ids: the capacity of the engine's
    /// action list, its documented worst case.
    pub fn max_legal(&self) -> usize {
        self.max_legal
    }

    /// The batch seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The seed of the `episode`-th game (from 0) of slot `game`:
    /// `seed + game + episode · N`, wrapping.
    pub fn game_seed(&self, game: usize, episode: u64) -> u64 {
        SlotSeeds::new(self.seed, self.games).game_seed(game, episode)
    }

    /// The current state of game `game` (`None` out of range).
    pub fn state(&self, game: usize) -> Option<&G> {
        self.slots.get(game).map(|s| &s.state)
    }

    /// The seed of game `game`'s current game (`None` out of range).
    pub fn current_seed(&self, game: usize) -> Option<u64> {
        self.slots.get(game).map(|s| s.seed)
    }

    /// How many games slot `game` has finished (`None` out of range).
    pub fn finished(&self, game: usize) -> Option<u64> {
        self.slots.get(game).map(|s| s.episode)
    }

    /// Checks the output lengths; returns the row widths.
    fn check(&self, out: &BatchOut<'_>) -> Result<Widths, BatchError<G::Error>> {
        let n = self.slots.len();
        let need = |name: &'static str, found: usize, expected: usize| {
            if found == expected { Ok(()) } else { Err(BatchError::Buffer { name, found, expected, optional: false }) }
        };
        let maybe = |name: &'static str, found: usize, width: usize| {
            if found == 0 {
                Ok(0)
            } else if found == n * width {
                Ok(width)
            } else {
                Err(BatchError::Buffer { name, found, expected: n * width, optional: true })
            }
        };
        need("player", out.player.len(), n)?;
        need("legal_count", out.legal_count.len(), n)?;
        need("rewards", out.rewards.len(), n * self.players)?;
        need("done", out.done.len(), n)?;
        Ok(Widths {
            obs: maybe("obs", out.obs.len(), self.obs_len)?,
            mask: maybe("legal_mask", out.legal_mask.len(), self.num_actions)?,
            ids: maybe("legal_ids", out.legal_ids.len(), self.max_legal)?,
            rewards: self.players,
        })
    }

    /// Writes every game's current decision into `out` without stepping
    /// (rewards and done flags 0): after [`Batch::new`] or [`Batch::reset`].
    ///
    /// # Errors
    /// [`BatchError::Buffer`] when an output has the wrong length.
    pub fn observe(&mut self, out: &mut BatchOut<'_>) -> Result<(), BatchError<G::Error>> {
        let widths = self.check(out)?;
        self.pending.clear();
        self.run(widths, out.reborrow());
        Ok(())
    }

    /// Plays `actions[i]` (an action id) in game `i` for every game, resolves
    /// the chance nodes that follow, restarts the games that ended, and
    /// writes the next decisions into `out`. Every action is validated before
    /// any is played.
    ///
    /// # Errors
    /// [`BatchError::Buffer`] or [`BatchError::ActionCount`] for inputs of
    /// the wrong size; [`BatchError::Action`] (the first game, by index,
    /// whose id is unknown or illegal) or [`BatchError::NotToMove`]. On any
    /// error no game has advanced and `out` is unchanged.
    pub fn step(&mut self, actions: &[ActionId], out: &mut BatchOut<'_>) -> Result<(), BatchError<G::Error>> {
        let widths = self.check(out)?;
        if actions.len() != self.slots.len() {
            return Err(BatchError::ActionCount { found: actions.len(), expected: self.slots.len() });
        }
        self.pending.clear();
        for (game, (slot, &id)) in self.slots.iter().zip(actions).enumerate() {
            if !matches!(slot.state.turn(), Turn::Player(_)) {
                self.pending.clear();
                return Err(BatchError::NotToMove { game });
            }
            let checked = G::action_from_id(&self.config, id).and_then(|a| slot.state.validate(a).map(|()| a));
            match checked {
                Ok(a) => self.pending.push(a),
                Err(source) => {
                    self.pending.clear();
                    return Err(BatchError::Action { game, id, source });
                }
            }
        }
        self.run(widths, out.reborrow());
        self.pending.clear();
        Ok(())
    }

    /// Steps (if `pending` holds one action per game) or only observes, over
    /// the configured threads.
    fn run(&mut self, widths: Widths, out: BatchOut<'_>) {
        let n = self.slots.len();
        let threads = self.threads.min(n).max(1);
        let shared = Shared {
            initial: &self.initial,
            seeds: SlotSeeds::new(self.seed, n),
            widths,
            bound: G::max_game_length(&self.config),
        };
        let actions: Option<&[G::Action]> = if self.pending.len() == n { Some(&self.pending) } else { None };
        if threads == 1 {
            shared.chunk(0, &mut self.slots, actions, out);
            return;
        }
        let per = n.div_ceil(threads);
        // The chunks, each in a cell its thread takes it from: a chunk
        // whose thread cannot be spawned (the system's thread or memory
        // limit) is taken back and stepped on this thread, so a step never
        // fails, or panics, for want of threads.
        let mut jobs: Vec<Mutex<Option<Job<'_, G>>>> = Vec::with_capacity(threads);
        let mut rest_slots: &mut [Slot<G>] = &mut self.slots;
        let mut rest_out = out;
        let mut first = 0;
        while !rest_slots.is_empty() {
            let take = per.min(rest_slots.len());
            let (slots, more) = rest_slots.split_at_mut(take);
            rest_slots = more;
            let (chunk_out, more_out) = rest_out.split(take, widths);
            rest_out = more_out;
            let acts = actions.map(|a| &a[first..first + take]);
            jobs.push(Mutex::new(Some((first, slots, acts, chunk_out))));
            first += take;
        }
        let shared = &shared;
        let run = |cell: &Mutex<Option<Job<'_, G>>>| {
            let job = cell.lock().map_or(None, |mut j| j.take());
            if let Some((start, slots, acts, chunk_out)) = job {
                shared.chunk(start, slots, acts, chunk_out);
            }
        };
        std::thread::scope(|scope| {
            let mut unspawned = false;
            for cell in jobs.iter().skip(1) {
                if std::thread::Builder::new().spawn_scoped(scope, move || run(cell)).is_err() {
                    unspawned = true;
                }
            }
            if let Some(cell) = jobs.first() {
                run(cell);
            }
            if unspawned {
                // the cells of spawned threads are empty or being stepped
                // (and the thread owns its chunk); the others are stepped here
                for cell in jobs.iter().skip(1) {
                    run(cell);
                }
            }
        });
    }
}

impl<G: Game> Shared<'_, G> {
    /// Starts slot `game`'s next game (its `slot.episode`-th) and resolves
    /// its opening chance nodes. A game that ends before its first decision
    /// is skipped (counted as finished) for the slot's next seed, at most
    /// [`MAX_SKIPPED`] times in a row.
    fn start(&self, slot: &mut Slot<G>, game: usize) {
        let mut chances = G::ChanceList::default();
        let mut episode = slot.episode;
        self.seeds.start(game, &mut episode, |seed| {
            slot.seed = seed;
            slot.state = self.initial.clone();
            slot.chance = GameRng::new(seed).child(CHANCE_STREAM);
            self.resolve_chance(slot, &mut chances);
            matches!(slot.state.turn(), Turn::Player(_))
        });
        slot.episode = episode;
    }

    /// Plays chance outcomes until a decision or the end (bounded by the
    /// engine's declared game length).
    fn resolve_chance(&self, slot: &mut Slot<G>, chances: &mut G::ChanceList) {
        let mut guard = 0;
        while slot.state.turn() == Turn::Chance && guard <= self.bound {
            match sample_chance(&slot.state, &mut slot.chance, chances) {
                Some(a) => slot.state.apply_unchecked(a),
                None => break,
            }
            guard += 1;
        }
    }

    /// Steps (or observes) the games `first..first + slots.len()`.
    fn chunk(&self, first: usize, slots: &mut [Slot<G>], actions: Option<&[G::Action]>, out: BatchOut<'_>) {
        let w = self.widths;
        let mut list = G::ActionList::default();
        let mut chances = G::ChanceList::default();
        let mut returns = [0f64; MAX_BATCH_SEATS];
        for (k, slot) in slots.iter_mut().enumerate() {
            let game = first + k;
            let rewards = &mut out.rewards[k * w.rewards..(k + 1) * w.rewards];
            rewards.iter_mut().for_each(|r| *r = 0.0);
            out.done[k] = 0;
            if let Some(actions) = actions {
                slot.state.apply_unchecked(actions[k]);
                self.resolve_chance(slot, &mut chances);
                if slot.state.turn() == Turn::Terminal {
                    let seats = &mut returns[..w.rewards];
                    slot.state.returns(seats);
                    for (r, &v) in rewards.iter_mut().zip(seats.iter()) {
                        *r = v as f32;
                    }
                    out.done[k] = 1;
                    slot.episode = slot.episode.wrapping_add(1);
                    self.start(slot, game);
                }
            }
            let seat = match slot.state.turn() {
                Turn::Player(p) => Some(p),
                _ => None,
            };
            out.player[k] = seat.map_or(NO_PLAYER, |p| p as u32);
            if seat.is_some() {
                slot.state.legal_actions(&mut list);
            } else {
                list.clear();
            }
            out.legal_count[k] = list.len() as u32;
            if w.obs > 0 {
                let row = &mut out.obs[k * w.obs..(k + 1) * w.obs];
                let written = seat.is_some_and(|p| slot.state.write_observation_tensor(p, row).is_ok());
                if !written {
                    row.iter_mut().for_each(|x| *x = 0.0);
                }
            }
            if w.mask > 0 {
                let row = &mut out.legal_mask[k * w.mask..(k + 1) * w.mask];
                row.iter_mut().for_each(|m| *m = 0);
                for &a in list.iter() {
                    if let Some(m) = row.get_mut(G::action_id(slot.state.config(), a) as usize) {
                        *m = 1;
                    }
                }
            }
            if w.ids > 0 {
                let row = &mut out.legal_ids[k * w.ids..(k + 1) * w.ids];
                let (ids, pad) = row.split_at_mut(list.len().min(w.ids));
                for (id, &a) in ids.iter_mut().zip(list.iter()) {
                    *id = G::action_id(slot.state.config(), a);
                }
                pad.iter_mut().for_each(|id| *id = PAD_ID);
            }
        }
    }
}
