//! The compact action space: a few hundred ids for a policy head instead of
//! the 41,667+ flat ids, with a plain boolean mask.
//!
//! The flat ids ([`Action::id`]) name everything absolutely (a camel move is
//! `from × to`, a move of a good `from × kind × under × to`), so most of the
//! space can never be legal at once. A compact id instead names the
//! **source** of an action by its *slot* among the mover's own camels — slot
//! `i` is the `i`-th square (in square order) holding an unladen camel of the
//! mover, good slot `g` the `g`-th distinct laden camel (square, cargo) of
//! the mover in square order — and keeps the **target** absolute (a square
//! `0..49`, a kind, a victim relative to the mover). In every position each
//! compact id therefore names at most one flat action, and every legal flat
//! action has exactly one compact id: the two forms are a bijection between
//! the legal actions of a decision (property-tested over reachable states).
//!
//! # Id layout (fixed; only the number of steal victims depends on the
//! configuration)
//!
//! | ids | action | flat action |
//! |---|---|---|
//! | `0` | end the turn (C-4.2) | `end` |
//! | `1..9` | pick up at numbered space `n = id` (C-5.2) | `pick n` |
//! | `9..352` | camel move `9 + src * 49 + to`: `src` 0 is the supply, `src = 1 + i` the unladen slot `i` (C-5.1) | `move supply->to`, `move <slot i>->to` |
//! | `352..646` | good move `352 + g * 49 + to`, `g` the good slot (C-5.3/C-5.4) | `good K [under] <slot g>=>to` |
//! | `646..` | steal `646 + ((r - 1) * 6 + i) * 8 + kind`: the thief's unladen slot `i`, the victim `r` seats after the mover (C-5.5) | `steal K <slot i> from P(mover + r)` |
//!
//! The space has `646 + 48 × (players − 1)` ids: 694, 742, 790 for 2, 3, 4
//! players ([`compact_num_actions`]). Six slots (`COMPACT_SLOTS`) cover the
//! introductory game's six camels; with five camels slot 5 is never used.
//! Chance outcomes (draws) have no compact id: the compact space covers the
//! decisions of the player to move.
//!
//! # Use
//!
//! * [`Caravan::write_compact_mask`] writes the mask (exactly the image of
//!   the legal actions) into a caller buffer of `bool`, `u8` or `f32`;
//! * [`Caravan::compact_action`] maps a compact id to its legal flat action,
//!   [`Caravan::compact_id`] a legal flat action to its compact id; both
//!   refuse with a [`CompactError`] what is not legal;
//! * [`CompactIndex`] is the per-position table both use, for callers that
//!   map many actions of one position (a legal-action list, a batch).
//!
//! Nothing here allocates, and no input panics.
//!
//! ```
//! use boardgame_kit::{Game, GameRng, Turn, sample_chance};
//! use caravan_core::{Caravan, CaravanConfig, compact_num_actions};
//!
//! let config = CaravanConfig::with_players(2);
//! let mut game = Caravan::new_game(&config).unwrap();
//! let mut chances = Default::default();
//! let mut rng = GameRng::new(1);
//! while game.turn() == Turn::Chance {
//!     let draw = sample_chance(&game, &mut rng, &mut chances).unwrap();
//!     game.apply(draw).unwrap();
//! }
//! let mut mask = vec![false; compact_num_actions(&config)];
//! assert_eq!(mask.len(), 694);
//! let legal = game.write_compact_mask(&mut mask).unwrap();
//! assert_eq!(legal, 50); // 49 placements from the supply and `end`
//! let id = mask.iter().rposition(|&m| m).unwrap();
//! let action = game.compact_action(id as u32).unwrap();
//! assert_eq!(action.to_string(), "move supply->g7");
//! assert_eq!(game.compact_id(action).unwrap(), id as u32);
//! ```

use boardgame_kit::{Game, Turn};

use crate::action::{Action, ActionList, Decoded, GOOD_BASE, MOVE_BASE, SUPPLY_FROM};
use crate::board::{Bits, FULL, KINDS, SPACES, SQUARES, nth_sparse};
use crate::error::IllegalReason;
use crate::state::{Caravan, MAX_CAMELS, MAX_PLAYERS, NO_CAMEL, SUPPLY_LOC};

const SQ: u32 = SQUARES as u32;
/// Source slots of camel moves and thefts, and good slots (C-1.2: at most
/// six camels a player).
const SLOTS: u32 = MAX_CAMELS as u32;

/// The number of source slots (unladen squares, and distinct laden camels)
/// the compact layout provides: six, the most camels a player has (C-1.2).
pub const COMPACT_SLOTS: usize = MAX_CAMELS;

/// The planes of [`CompactIndex::write_slot_planes`]: one per unladen slot
/// and one per good slot.
pub const SLOT_PLANES: usize = 2 * COMPACT_SLOTS;

const C_END: u32 = 0;
const C_PICK: u32 = 1;
const C_MOVE: u32 = C_PICK + SPACES as u32;
const C_GOOD: u32 = C_MOVE + (SLOTS + 1) * SQ;
const C_STEAL: u32 = C_GOOD + SLOTS * SQ;
const C_STEAL_PER_VICTIM: u32 = SLOTS * KINDS as u32;

/// The compact ids before those of the board (`end`, then a pick of each
/// space): the first policy entries a network computes from its features.
pub const COMPACT_BEFORE_BOARD: usize = C_MOVE as usize;

/// The compact ids of the board, one plane of 49 squares each (camel moves
/// from the unladen-square source and the six camel slots, good moves from
/// the six good slots, to each square): [`COMPACT_BOARD_PLANES`] planes
/// from [`COMPACT_BEFORE_BOARD`] on, then the thefts.
pub const COMPACT_BOARD_PLANES: usize = ((C_STEAL - C_MOVE) / SQ) as usize;

/// The number of compact ids of a game with `players` players.
const fn compact_space(players: u8) -> u32 {
    let victims = if players > 1 { players as u32 - 1 } else { 0 };
    C_STEAL + C_STEAL_PER_VICTIM * victims
}

/// The largest compact space (4 players): 790 ids.
pub const MAX_COMPACT_ACTIONS: usize = compact_space(MAX_PLAYERS as u8) as usize;

/// The number of compact ids of `config`: `646 + 48 × (players − 1)` (694,
/// 742, 790 for 2, 3, 4 players). Ids are `0..compact_num_actions(config)`.
pub fn compact_num_actions(config: &crate::CaravanConfig) -> usize {
    compact_space(config.players.min(MAX_PLAYERS as u8)) as usize
}

/// Why a compact id or a flat action could not be mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// The compact id is outside the configuration's compact space.
    #[error("compact id {id} is outside the compact action space 0..{num_ids}")]
    UnknownId {
        /// The id given.
        id: u32,
        /// The size of the compact space.
        num_ids: u32,
    },
    /// The state waits for no decision: compact ids name decisions only.
    #[error("compact actions name a player's decisions, but {0}")]
    NoDecision(&'static str),
    /// The compact id names a source slot the mover does not have now.
    #[error("compact id {id} names {what} slot {slot}, but the player to move has only {available} such slots now")]
    EmptySlot {
        /// The id given.
        id: u32,
        /// `unladen-camel` or `good`.
        what: &'static str,
        /// The slot the id names.
        slot: u32,
        /// The slots the mover has now.
        available: u32,
    },
    /// The action (given, or the one a compact id names) is not legal now.
    #[error("{action} is not legal now: {reason}")]
    Illegal {
        /// The flat action.
        action: Action,
        /// Why it is illegal.
        reason: IllegalReason,
    },
    /// The mask buffer does not have one entry per compact id.
    #[error("a compact mask needs {expected} entries (one per compact id), the buffer has {found}")]
    Buffer {
        /// The buffer's length.
        found: usize,
        /// The compact space's size.
        expected: usize,
    },
}

/// The per-position table of the compact ids: the mover's unladen squares
/// (the source slots) and distinct laden camels (the good slots). Built by
/// [`Caravan::compact_index`] at a decision; plain `Copy` data, no
/// allocation.
///
/// [`CompactIndex::encode`] and [`CompactIndex::decode`] map structurally
/// (a source slot exists or not) without checking the rules; the methods of
/// [`Caravan`] also check legality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactIndex {
    players: u8,
    seat: u8,
    /// The mover's squares with an unladen camel.
    unladen: u64,
    /// The mover's distinct laden keys `square << 8 | cargo`, sorted.
    goods: [u16; MAX_CAMELS],
    n_goods: u8,
}

impl CompactIndex {
    /// The table of the position `state` for the player `seat`.
    fn of(state: &Caravan, seat: usize) -> CompactIndex {
        let p = seat % MAX_PLAYERS;
        let mut goods = [NO_CAMEL; MAX_CAMELS];
        let mut n = 0usize;
        for &k in &state.loads[p] {
            if k >> 8 >= SUPPLY_LOC {
                break; // the unused keys sort last
            }
            // the keys are sorted: equal keys are adjacent
            if n == 0 || goods.get(n - 1) != Some(&k) {
                if let Some(slot) = goods.get_mut(n) {
                    *slot = k;
                }
                n += 1;
            }
        }
        CompactIndex {
            players: state.config.players,
            seat: p as u8,
            unladen: state.unladen[p],
            goods,
            n_goods: n.min(MAX_CAMELS) as u8,
        }
    }

    /// The number of compact ids of the position's configuration.
    pub fn num_actions(&self) -> usize {
        compact_space(self.players) as usize
    }

    /// The seat whose decisions the table maps.
    pub fn seat(&self) -> usize {
        usize::from(self.seat)
    }

    /// The unladen slot of square index `sq`, if the mover has an unladen
    /// camel there.
    #[inline]
    /// Writes [`SLOT_PLANES`] planes of 49 squares into `out` (at least
    /// `SLOT_PLANES × 49` long; the rest untouched): plane `i < 6` marks the
    /// square of unladen slot `i`, plane `6 + g` the square of good slot `g`
    /// — where the sources of the compact ids are. The planes must be zero
    /// before the call.
    pub fn write_slot_planes(&self, out: &mut [f32]) {
        let sq = SQ as usize;
        for (i, s) in Bits(self.unladen).enumerate() {
            if let Some(x) = out.get_mut(i * sq + usize::from(s)) {
                *x = 1.0;
            }
        }
        for (g, &k) in self.goods.iter().take(usize::from(self.n_goods)).enumerate() {
            let s = usize::from(k >> 8);
            if s < sq
                && let Some(x) = out.get_mut((SLOTS as usize + g) * sq + s)
            {
                *x = 1.0;
            }
        }
    }

    fn unladen_slot(&self, sq: u32) -> Option<u32> {
        let bit = 1u64 << (sq & 63);
        (sq < SQ && self.unladen & bit != 0).then(|| (self.unladen & (bit - 1)).count_ones())
    }

    /// The compact id of `action` in this position, without checking the
    /// rules: `None` for a draw, or when the action's source is not one of
    /// the mover's slots (then it is not legal either). For a legal action
    /// it is always `Some`.
    #[inline]
    pub fn encode(&self, action: Action) -> Option<u32> {
        match action.decode() {
            Decoded::Draw { .. } => None,
            Decoded::End => Some(C_END),
            Decoded::Pick { index } => Some(C_PICK + index),
            Decoded::Move { from, to } => {
                let src = if from == SUPPLY_FROM { 0 } else { 1 + self.unladen_slot(from)? };
                Some(C_MOVE + src * SQ + to)
            }
            Decoded::Good { from, kind, under, to } => {
                let key = ((from as u16) << 8) | (1 + kind as u16 + if under { KINDS as u16 } else { 0 });
                let goods = self.goods.get(..usize::from(self.n_goods)).unwrap_or(&[]);
                let g = goods.binary_search(&key).ok()? as u32;
                Some(C_GOOD + g * SQ + to)
            }
            Decoded::Steal { victim, square, kind } => {
                let players = u32::from(self.players);
                if victim >= players {
                    return None;
                }
                let r = (victim + players - u32::from(self.seat)) % players;
                let slot = self.unladen_slot(square)?;
                (r != 0).then(|| C_STEAL + ((r - 1) * SLOTS + slot) * KINDS as u32 + kind)
            }
        }
    }

    /// The flat action compact id `id` names in this position, without
    /// checking the rules.
    ///
    /// # Errors
    /// [`CompactError::UnknownId`] beyond the compact space,
    /// [`CompactError::EmptySlot`] when the id names a slot the mover does
    /// not have now.
    #[inline]
    pub fn decode(&self, id: u32) -> Result<Action, CompactError> {
        let num_ids = compact_space(self.players);
        if id >= num_ids {
            return Err(CompactError::UnknownId { id, num_ids });
        }
        let unladen_square = |slot: u32| {
            let sq = nth_sparse(self.unladen, slot);
            (sq < SQ).then_some(sq).ok_or(CompactError::EmptySlot {
                id,
                what: "unladen-camel",
                slot,
                available: self.unladen.count_ones(),
            })
        };
        if id == C_END {
            Ok(Action::END)
        } else if id < C_MOVE {
            Ok(Action::pick_at((id - C_PICK) as usize))
        } else if id < C_GOOD {
            let r = id - C_MOVE;
            let (src, to) = (r / SQ, r % SQ);
            let from = if src == 0 { SUPPLY_FROM } else { unladen_square(src - 1)? };
            Ok(Action::raw(Action::moves_from(from) + to))
        } else if id < C_STEAL {
            let r = id - C_GOOD;
            let (g, to) = (r / SQ, r % SQ);
            let key = match self.goods.get(g as usize) {
                Some(&k) if g < u32::from(self.n_goods) => k,
                _ => {
                    return Err(CompactError::EmptySlot {
                        id,
                        what: "good",
                        slot: g,
                        available: u32::from(self.n_goods),
                    });
                }
            };
            let (from, code) = (u32::from(key >> 8), u32::from(key & 0xFF));
            // cargo codes: 1 + kind on top, 9 + kind under
            let (kind, under) = if code > KINDS as u32 { (code - 1 - KINDS as u32, true) } else { (code - 1, false) };
            Ok(Action::raw(Action::goods_from(from, kind, under) + to))
        } else {
            let r = id - C_STEAL;
            let kind = r % KINDS as u32;
            let r = r / KINDS as u32;
            let (rel, slot) = (1 + r / SLOTS, r % SLOTS);
            let square = unladen_square(slot)?;
            let victim = (u32::from(self.seat) + rel) % u32::from(self.players.max(1));
            Ok(Action::steal_at(victim, square, kind))
        }
    }
}

impl Caravan {
    /// Refuses a state that waits for no decision.
    fn decision_seat(&self) -> Result<usize, CompactError> {
        match self.turn() {
            Turn::Player(p) => Ok(p),
            Turn::Chance => Err(CompactError::NoDecision("a good must be drawn first (chance node)")),
            Turn::Terminal => Err(CompactError::NoDecision("the game is over")),
        }
    }

    /// The compact-id table of this decision (see the [`CompactIndex`] docs).
    ///
    /// # Errors
    /// [`CompactError::NoDecision`] at a chance node or once the game is
    /// over.
    pub fn compact_index(&self) -> Result<CompactIndex, CompactError> {
        Ok(CompactIndex::of(self, self.decision_seat()?))
    }

    /// The legal flat action that compact id `id` names now.
    ///
    /// # Errors
    /// [`CompactError::NoDecision`] at a chance node or at the end,
    /// [`CompactError::UnknownId`] beyond the compact space,
    /// [`CompactError::EmptySlot`] for a slot the mover does not have,
    /// [`CompactError::Illegal`] (with the rules' reason) when the action it
    /// names is not legal now — exactly the ids the mask leaves false.
    pub fn compact_action(&self, id: u32) -> Result<Action, CompactError> {
        let action = self.compact_index()?.decode(id)?;
        self.check(action).map_err(|reason| CompactError::Illegal { action, reason })?;
        Ok(action)
    }

    /// The compact id of the legal flat action `action`.
    ///
    /// # Errors
    /// [`CompactError::NoDecision`] at a chance node or at the end,
    /// [`CompactError::Illegal`] (with the rules' reason) when `action` is
    /// not legal now.
    pub fn compact_id(&self, action: Action) -> Result<u32, CompactError> {
        let index = self.compact_index()?;
        self.check(action).map_err(|reason| CompactError::Illegal { action, reason })?;
        // a legal action's source is always one of the mover's slots
        index.encode(action).ok_or(CompactError::Illegal { action, reason: IllegalReason::OutOfSpace })
    }

    /// Writes the compact mask into `mask` (one entry per compact id,
    /// [`compact_num_actions`] of them): `true` (1) exactly at the compact
    /// ids of the legal actions, `false` (0) elsewhere. Returns the number
    /// of legal actions. At a chance node or once the game is over no
    /// decision is legal: the mask is all `false` and the count 0.
    /// `T` is `bool`, `u8` or `f32`, whatever the caller's buffer holds.
    /// Allocates nothing.
    ///
    /// # Errors
    /// [`CompactError::Buffer`] when `mask` has the wrong length (then it
    /// is left untouched).
    pub fn write_compact_mask<T: From<bool> + Copy>(&self, mask: &mut [T]) -> Result<usize, CompactError> {
        let mut list = ActionList::default();
        self.write_compact_mask_with(mask, &mut list)
    }

    /// [`Caravan::write_compact_mask`] that generates the legal actions in
    /// the caller's `scratch` list (which ends holding them, in the
    /// engine's order): for callers that also want the flat actions.
    ///
    /// # Errors
    /// [`CompactError::Buffer`] when `mask` has the wrong length.
    pub fn write_compact_mask_with<T: From<bool> + Copy>(
        &self,
        mask: &mut [T],
        scratch: &mut ActionList,
    ) -> Result<usize, CompactError> {
        let expected = compact_num_actions(&self.config);
        if mask.len() != expected {
            return Err(CompactError::Buffer { found: mask.len(), expected });
        }
        mask.fill(T::from(false));
        let Ok(seat) = self.decision_seat() else {
            boardgame_kit::ActionBuffer::clear(scratch);
            return Ok(0);
        };
        self.generate(scratch);
        let index = CompactIndex::of(self, seat);
        // The camel moves (C-5.1), most of the legal actions, as one 49-bit
        // target set per source, written in fixed-size blocks: with two
        // actions left every other square, with one only the free squares.
        let p = usize::from(index.seat);
        let free = FULL & !self.occupied();
        let two = self.left >= 2;
        let mut n = 0;
        if self.supply[p] > 0 {
            n += write_targets(mask, C_MOVE, if two { FULL } else { free });
        }
        for (i, s) in Bits(index.unladen).enumerate() {
            let targets = if two { FULL & !(1u64 << s) } else { free };
            n += write_targets(mask, C_MOVE + (1 + i as u32) * SQ, targets);
        }
        // the rest (pick-ups, goods, steals, `end`) from the legal list;
        // the generation lists the moves first, so the scan starts after
        // them when the list has that shape (and scans it all otherwise;
        // the property tests check the result against the whole list)
        let is_move = |a: &Action| (MOVE_BASE..GOOD_BASE).contains(&a.id());
        let moves = n;
        let start = match (scratch.first(), moves.checked_sub(1).and_then(|i| scratch.get(i)), scratch.get(moves)) {
            (Some(first), Some(last), Some(next)) if is_move(first) && is_move(last) && !is_move(next) => moves,
            _ => 0,
        };
        for a in scratch.get(start..).unwrap_or(&[]) {
            if is_move(a) {
                continue;
            }
            if let Some(slot) = index.encode(*a).and_then(|id| mask.get_mut(id as usize)) {
                *slot = T::from(true);
                n += 1;
            }
        }
        Ok(n)
    }
}

/// Sets `mask[base + t]` for every square `t` of `targets` (49 writes,
/// no data-dependent branch); returns the number set.
#[inline]
fn write_targets<T: From<bool> + Copy>(mask: &mut [T], base: u32, targets: u64) -> usize {
    if let Some(block) = mask.get_mut(base as usize..(base + SQ) as usize) {
        for (t, slot) in block.iter_mut().enumerate() {
            *slot = T::from((targets >> t) & 1 == 1);
        }
    }
    targets.count_ones() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CaravanConfig;

    #[test]
    fn layout_sizes() {
        assert_eq!((C_MOVE, C_GOOD, C_STEAL), (9, 352, 646));
        for (players, size) in [(2u8, 694usize), (3, 742), (4, 790)] {
            assert_eq!(compact_num_actions(&CaravanConfig::with_players(players)), size);
        }
        assert_eq!(MAX_COMPACT_ACTIONS, 790);
    }
}
