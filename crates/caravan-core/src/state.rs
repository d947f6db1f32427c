//! [`Caravan`]: the state of a game, its move generation and its transitions.

use boardgame_kit::ActionBuffer;
use serde::{Deserialize, Serialize};

use crate::action::{Action, END_ID, GOOD_BASE, MOVE_BASE, PICK_BASE, STEAL_BASE, SUPPLY_FROM};
use crate::board::{Bits, FULL, KINDS, Kind, SPACES, SQUARES, Square, flood};
use crate::config::CaravanConfig;
use crate::error::Illegal;
use crate::list::ActionList;
use crate::setup::CaravanSetup;

/// The capacity of [`crate::ActionList`], by the worst case of C-5:
/// camel moves ≤ 49 (from the supply) + 5 × 48 (five board squares with an
/// unladen camel while one camel is still in the supply; six camels on six
/// squares give only 288) = 289; pick-ups ≤ 8; moves of goods ≤ 9 (L laden
/// camels × at most 6 − L target squares); steals ≤ 18 (three opponents × six
/// camels); `end` 1. Total 325, rounded up.
pub const ACTION_LIST_CAPACITY: usize = 336;

/// Seats of a game (C-1.1: at most 4).
pub(crate) const MAX_PLAYERS: usize = 4;
/// Camel slots per player (C-1.2: at most 6).
pub(crate) const MAX_CAMELS: usize = 6;
/// An unused camel slot (players not in the game, the 6th camel of a
/// 5-camel game). Sorts after every real camel.
pub(crate) const NO_CAMEL: u16 = 0xFFFF;
/// The location of a camel in its owner's supply.
pub(crate) const SUPPLY_LOC: u16 = SQUARES as u16;
const SUPPLY_KEY: u16 = SUPPLY_LOC << 8;

/// How a game ended (C-7.1, C-7.2). A simulator can count how often each end
/// is reached through [`Caravan::end_kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndKind {
    /// C-7.1: the first delivery after the bag emptied.
    Natural,
    /// C-7.2: `max_turns` turns were played.
    MaxTurns,
    /// C-7.2: a full round of passes after the opening.
    Passes,
}

/// What a camel carries (C-5: a laden camel carries exactly one good, on
/// top or under it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Cargo {
    /// Unladen.
    Empty,
    /// A good on top (picked up or moved onto it, C-5.2/C-5.3).
    Top(Kind),
    /// A good under it (stolen, C-5.5).
    Under(Kind),
}

impl Cargo {
    /// The cargo byte of a camel key: 0 empty, `1 + k` top, `9 + k` under.
    pub(crate) const fn code(self) -> u16 {
        match self {
            Cargo::Empty => 0,
            Cargo::Top(k) => 1 + k as u16,
            Cargo::Under(k) => 9 + k as u16,
        }
    }

    pub(crate) const fn from_code(c: u16) -> Cargo {
        match c {
            1..=8 => Cargo::Top(Kind::ALL[(c - 1) as usize]),
            9..=16 => Cargo::Under(Kind::ALL[(c - 9) as usize]),
            _ => Cargo::Empty,
        }
    }

    /// The good carried, if any.
    pub const fn kind(self) -> Option<Kind> {
        match self {
            Cargo::Empty => None,
            Cargo::Top(k) | Cargo::Under(k) => Some(k),
        }
    }
}

/// The state of a game of Caravan: plain fixed-size data (`Copy`, about 300
/// bytes), so a clone is a memcpy.
///
/// * camels: per player, six `u16` keys `square << 8 | cargo` (square 49 =
///   supply, `0xFFFF` = no camel), kept sorted so that equal positions are
///   equal values (C-5.6), with per-player bitboards of occupied squares and
///   of squares holding an unladen camel;
/// * goods lying per numbered space, demand markers per space, the bag as
///   counts per kind, delivered piles per player and kind, demand and theft
///   markers per player;
/// * turn index, actions left, picks since the last refill, pending draws,
///   consecutive passes and how the game ended.
///
/// Build one with [`boardgame_kit::Game::new_game`] or from a hand-made
/// position with [`Caravan::from_setup`]. Deserializing goes through the
/// same validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "CaravanSetup", into = "CaravanSetup")]
pub struct Caravan {
    pub(crate) config: CaravanConfig,
    pub(crate) camels: [[u16; MAX_CAMELS]; MAX_PLAYERS],
    pub(crate) occ: [u64; MAX_PLAYERS],
    pub(crate) unladen: [u64; MAX_PLAYERS],
    pub(crate) supply: [u8; MAX_PLAYERS],
    /// `0` for an empty space, `1 + kind` for a good lying there.
    pub(crate) lying: [u8; SPACES],
    pub(crate) space_markers: [u8; SPACES],
    pub(crate) bag: [u8; KINDS],
    pub(crate) bag_total: u8,
    pub(crate) delivered: [[u8; KINDS]; MAX_PLAYERS],
    pub(crate) demand: [u8; MAX_PLAYERS],
    pub(crate) theft: [u8; MAX_PLAYERS],
    pub(crate) turn_index: u32,
    pub(crate) left: u8,
    pub(crate) picks: u8,
    /// Bit `i`: numbered space `i + 1` waits for a draw (C-3.1, C-6.1).
    pub(crate) pending: u8,
    pub(crate) passes: u8,
    pub(crate) end: Option<EndKind>,
}

/// C-4.1: the allowance of the `t`-th turn, `min(t + 1, 4)`.
#[inline]
pub const fn allowance(t: u32) -> u8 {
    if t >= 3 { 4 } else { t as u8 + 1 }
}

impl Caravan {
    /// An empty shell for `config` (no validation): all camels in supply,
    /// all goods in the bag.
    pub(crate) fn blank(config: CaravanConfig) -> Caravan {
        let mut camels = [[NO_CAMEL; MAX_CAMELS]; MAX_PLAYERS];
        for row in camels.iter_mut().take(usize::from(config.players)) {
            for slot in row.iter_mut().take(usize::from(config.camels)) {
                *slot = SUPPLY_KEY;
            }
        }
        let mut s = Caravan {
            config,
            camels,
            occ: [0; MAX_PLAYERS],
            unladen: [0; MAX_PLAYERS],
            supply: [0; MAX_PLAYERS],
            lying: [0; SPACES],
            space_markers: [0; SPACES],
            bag: crate::board::FULL_BAG,
            bag_total: 48,
            delivered: [[0; KINDS]; MAX_PLAYERS],
            demand: [0; MAX_PLAYERS],
            theft: [0; MAX_PLAYERS],
            turn_index: 0,
            left: 1,
            picks: 0,
            pending: 0,
            passes: 0,
            end: None,
        };
        for p in 0..usize::from(config.players) {
            s.theft[p] = 1; // C-1.5
            s.refresh(p);
        }
        s
    }

    /// The position of C-3 before its draws: camels in supply, a demand
    /// marker on spaces 1, 2, 7 and 8 (C-3.2), the 8 setup draws pending
    /// (C-3.1), seat 0 to move first with 1 action (C-3.3, C-4.1).
    pub(crate) fn initial(config: CaravanConfig) -> Caravan {
        let mut s = Caravan::blank(config);
        s.space_markers = [1, 1, 0, 0, 0, 0, 1, 1]; // C-3.2
        s.pending = 0xFF; // C-3.1
        s
    }

    /// Recomputes the bitboards and supply count of player `p` from its keys.
    #[inline]
    pub(crate) fn refresh(&mut self, p: usize) {
        let (mut occ, mut un, mut sup) = (0u64, 0u64, 0u8);
        for &k in &self.camels[p] {
            let loc = k >> 8;
            if loc < SUPPLY_LOC {
                occ |= 1u64 << loc;
                if k & 0xFF == 0 {
                    un |= 1u64 << loc;
                }
            } else if loc == SUPPLY_LOC {
                sup += 1;
            }
        }
        self.occ[p] = occ;
        self.unladen[p] = un;
        self.supply[p] = sup;
    }

    /// Replaces one camel key `old` of player `p` by `new`, keeping the keys
    /// sorted and the bitboards in step.
    #[inline]
    fn replace(&mut self, p: usize, old: u16, new: u16) {
        let arr = &mut self.camels[p];
        if let Some(mut i) = arr.iter().position(|&k| k == old) {
            arr[i] = new;
            while i > 0 && arr[i - 1] > arr[i] {
                arr.swap(i - 1, i);
                i -= 1;
            }
            while i + 1 < MAX_CAMELS && arr[i + 1] < arr[i] {
                arr.swap(i, i + 1);
                i += 1;
            }
        }
        self.refresh(p);
    }

    /// The seat whose turn it is (also during a chance node inside a turn).
    #[inline]
    pub fn to_move(&self) -> usize {
        (self.turn_index % u32::from(self.config.players.max(1))) as usize
    }

    /// Squares holding at least one camel of anyone (C-5: "occupied").
    #[inline]
    pub(crate) fn occupied(&self) -> u64 {
        self.occ[0] | self.occ[1] | self.occ[2] | self.occ[3]
    }

    /// How the game ended, `None` while it goes on.
    pub fn end_kind(&self) -> Option<EndKind> {
        self.end
    }

    /// The turn index `t` (C-4.1), counting all players' turns from 0.
    pub fn turn_index(&self) -> u32 {
        self.turn_index
    }

    /// The actions left in the current turn (C-4.2); 0 once the game is over.
    pub fn actions_left(&self) -> u8 {
        self.left
    }

    /// Goods picked up since the last refill (C-6.1).
    pub fn picks_since_refill(&self) -> u8 {
        self.picks
    }

    /// The cubes of each kind in the bag (C-8.1: public as a multiset).
    pub fn bag(&self) -> [u8; KINDS] {
        self.bag
    }

    /// The number of cubes in the bag.
    pub fn bag_len(&self) -> u8 {
        self.bag_total
    }

    /// The good lying on numbered space `number` (`1..=8`).
    pub fn lying(&self, number: u8) -> Option<Kind> {
        let i = usize::from(number).checked_sub(1)?;
        let v = *self.lying.get(i)?;
        v.checked_sub(1).and_then(Kind::from_index)
    }

    /// The demand markers on numbered space `number` (`1..=8`), 0 for others.
    pub fn space_markers(&self, number: u8) -> u8 {
        usize::from(number).checked_sub(1).and_then(|i| self.space_markers.get(i).copied()).unwrap_or(0)
    }

    /// The numbered spaces (bit `i` = space `i + 1`) waiting for a draw.
    pub fn pending_draws(&self) -> u8 {
        self.pending
    }

    /// The consecutive passes after the opening (C-7.2).
    pub fn passes(&self) -> u8 {
        self.passes
    }

    /// Camels of `player` in its supply (0 for a seat not in the game).
    pub fn supply(&self, player: usize) -> u8 {
        self.supply.get(player).copied().unwrap_or(0)
    }

    /// The camels of `player` on the board, as `(square, cargo)`, sorted.
    pub fn camels_on_board(&self, player: usize) -> impl Iterator<Item = (Square, Cargo)> + '_ {
        self.camels.get(player).into_iter().flatten().filter_map(|&k| {
            let sq = Square::from_index((k >> 8) as u8)?;
            Some((sq, Cargo::from_code(k & 0xFF)))
        })
    }

    /// Goods of each kind in `player`'s delivered pile.
    pub fn delivered(&self, player: usize) -> [u8; KINDS] {
        self.delivered.get(player).copied().unwrap_or([0; KINDS])
    }

    /// Goods in `player`'s delivered pile.
    pub fn delivered_count(&self, player: usize) -> u32 {
        self.delivered(player).iter().map(|&n| u32::from(n)).sum()
    }

    /// Demand markers held by `player` (C-5.2).
    pub fn demand_markers(&self, player: usize) -> u8 {
        self.demand.get(player).copied().unwrap_or(0)
    }

    /// Theft markers held by `player` (C-1.5, C-5.5).
    pub fn theft_markers(&self, player: usize) -> u8 {
        self.theft.get(player).copied().unwrap_or(0)
    }

    /// Goods on or under `player`'s camels (C-7.4).
    pub fn held(&self, player: usize) -> u32 {
        self.camels.get(player).into_iter().flatten().filter(|&&k| k != NO_CAMEL && k & 0xFF != 0).count() as u32
    }

    /// Every good in the game, wherever it is (C-1.3: always 48): bag,
    /// lying, carried and delivered, per kind.
    pub fn goods_by_kind(&self) -> [u32; KINDS] {
        let mut n = self.bag.map(u32::from);
        for &v in &self.lying {
            if let Some(k) = usize::from(v).checked_sub(1) {
                n[k & 7] += 1;
            }
        }
        for (camels, pile) in self.camels.iter().zip(&self.delivered) {
            for &key in camels {
                if key != NO_CAMEL
                    && let Some(k) = Cargo::from_code(key & 0xFF).kind()
                {
                    n[k as usize] += 1;
                }
            }
            for (total, &d) in n.iter_mut().zip(pile) {
                *total += u32::from(d);
            }
        }
        n
    }

    /// The score of `player` now (C-7.3, C-7.4).
    pub fn points(&self, player: usize) -> i32 {
        if player >= usize::from(self.config.players) {
            return 0;
        }
        let mut s = i32::from(self.demand[player]);
        for k in Kind::ALL {
            s += i32::from(self.delivered[player][k as usize]) * k.points();
        }
        if self.config.held_penalty {
            let h = self.held(player) as i32;
            s -= h * (h - 1) / 2; // C-7.4, C-9.4: 0, 0, 1, 3, 6, 10, 15, …
        }
        s
    }

    /// The legal actions, written into `out` (see [`boardgame_kit::Game::legal_actions`]).
    #[inline]
    pub(crate) fn generate(&self, out: &mut ActionList) {
        out.clear();
        if self.end.is_some() {
            return;
        }
        if self.pending != 0 {
            for k in 0..KINDS {
                if self.bag[k] > 0 {
                    out.push(Action::raw(k as u32));
                }
            }
            return;
        }
        let p = self.to_move();
        let sq = SQUARES as u32;
        // C-5.1: cost 1 to a free square, 2 to an occupied one. With two
        // actions left every other square is a target: the ids of one source
        // are then a block of 49 (48 from a square) consecutive ids.
        let un = self.unladen[p];
        if self.left >= 2 {
            if self.supply[p] > 0 {
                out.push_block(MOVE_BASE + SUPPLY_FROM * sq);
            }
            for s in Bits(un) {
                out.push_block_except(MOVE_BASE + u32::from(s) * sq, u32::from(s));
            }
        } else {
            // Every source has the same targets, the free squares (a source
            // square is occupied): generate them once, then copy them with
            // each other source's id offset.
            let free = FULL & !self.occupied();
            let start = out.len();
            let mut first: Option<(u32, usize)> = None;
            let sources = (self.supply[p] > 0).then_some(SUPPLY_FROM).into_iter().chain(Bits(un).map(u32::from));
            for s in sources {
                let base = MOVE_BASE + s * sq;
                match first {
                    None => {
                        out.push_mask(base, free);
                        first = Some((base, out.len() - start));
                    }
                    Some((b, count)) => out.push_shifted(start, count, base.wrapping_sub(b)),
                }
            }
        }
        // C-5.2
        for i in 0..SPACES {
            if self.lying[i] != 0 && un & (1u64 << (self.config.board.spaces[i] & 63)) != 0 {
                out.push(Action::raw(PICK_BASE + i as u32));
            }
        }
        // C-5.3: each distinct (square, good, position) of a laden camel.
        let mine = self.occ[p];
        let mut prev = NO_CAMEL;
        let mut comp_loc = u16::MAX;
        let mut comp = 0u64;
        for &key in &self.camels[p] {
            let loc = key >> 8;
            if loc >= SUPPLY_LOC {
                break;
            }
            let cargo = key & 0xFF;
            if cargo == 0 || key == prev {
                continue;
            }
            prev = key;
            if loc != comp_loc {
                comp = flood(mine, 1u64 << loc);
                comp_loc = loc;
            }
            let under = cargo >= 9;
            let kind = u32::from((cargo - 1) & 7);
            let mut t = comp & un;
            if !under {
                t &= !(1u64 << loc); // a good on top cannot stay in its square
            }
            let base = GOOD_BASE + ((u32::from(loc) * KINDS as u32 + kind) * 2 + u32::from(under)) * sq;
            out.push_mask(base, t);
        }
        // C-5.5
        if self.theft[p] > 0 {
            for q in 0..usize::from(self.config.players) {
                if q == p || self.occ[q] & un == 0 {
                    continue;
                }
                let mut prev = NO_CAMEL;
                for &key in &self.camels[q] {
                    let loc = key >> 8;
                    if loc >= SUPPLY_LOC {
                        break;
                    }
                    let cargo = key & 0xFF;
                    if (1..=8).contains(&cargo) && key != prev && un & (1u64 << loc) != 0 {
                        prev = key;
                        out.push(Action::raw(
                            STEAL_BASE + (q as u32 * sq + u32::from(loc)) * KINDS as u32 + u32::from(cargo - 1),
                        ));
                    }
                }
            }
        }
        out.push(Action::END);
    }

    /// Checks `action` against the rules, saying why it is illegal.
    pub(crate) fn check(&self, action: Action) -> Result<(), Illegal> {
        use crate::action::Act;
        if self.end.is_some() {
            return Err(Illegal::GameOver);
        }
        if action.id() >= crate::action::action_space(self.config.players) {
            return Err(Illegal::OutOfSpace);
        }
        let act = action.act();
        if self.pending != 0 {
            return match act {
                Act::Draw(k) if self.bag[k as usize] > 0 => Ok(()),
                Act::Draw(_) => Err(Illegal::NotInBag),
                _ => Err(Illegal::ChanceNode),
            };
        }
        let p = self.to_move();
        let un = self.unladen[p];
        match act {
            Act::Draw(_) => Err(Illegal::NotChance),
            Act::End => Ok(()),
            Act::Move { from, to } => {
                match from {
                    None if self.supply[p] == 0 => return Err(Illegal::SupplyEmpty),
                    Some(s) if un & s.bit() == 0 => return Err(Illegal::NoCamelAtSource),
                    Some(s) if s == to => return Err(Illegal::SameSquare),
                    _ => {}
                }
                if self.left < 2 && self.occupied() & to.bit() != 0 {
                    return Err(Illegal::NeedsTwoActions);
                }
                Ok(())
            }
            Act::Pick { space } => {
                let i = usize::from(space.saturating_sub(1)) % SPACES;
                if self.lying[i] == 0 {
                    return Err(Illegal::NoGoodLying);
                }
                if un & (1u64 << (self.config.board.spaces[i] & 63)) == 0 {
                    return Err(Illegal::NoUnladenCamel);
                }
                Ok(())
            }
            Act::Good { kind, under, from, to } => {
                let cargo = if under { Cargo::Under(kind) } else { Cargo::Top(kind) };
                let key = (u16::from(from.index()) << 8) | cargo.code();
                if !self.camels[p].contains(&key) {
                    return Err(Illegal::NoSuchGood);
                }
                if !under && from == to {
                    return Err(Illegal::TopSameSquare);
                }
                if un & to.bit() == 0 {
                    return Err(Illegal::NoTarget);
                }
                if flood(self.occ[p], from.bit()) & to.bit() == 0 {
                    return Err(Illegal::NoChain);
                }
                Ok(())
            }
            Act::Steal { kind, square, victim } => {
                let q = usize::from(victim);
                if q == p || q >= usize::from(self.config.players) {
                    return Err(Illegal::BadVictim);
                }
                if self.theft[p] == 0 {
                    return Err(Illegal::NoTheftMarker);
                }
                let key = (u16::from(square.index()) << 8) | Cargo::Top(kind).code();
                if !self.camels[q].contains(&key) {
                    return Err(Illegal::NothingToSteal);
                }
                if un & square.bit() == 0 {
                    return Err(Illegal::NoThief);
                }
                Ok(())
            }
        }
    }

    /// Plays a legal action (the rules' transitions, C-3..C-7).
    #[inline]
    pub(crate) fn play(&mut self, action: Action) {
        let id = action.id();
        let sq = SQUARES as u32;
        let p = self.to_move();
        if id < END_ID {
            // C-3.1 / C-6.1: a draw onto the next pending space, in order.
            let k = id as usize;
            let i = self.pending.trailing_zeros() as usize % SPACES;
            self.lying[i] = k as u8 + 1;
            self.bag[k] = self.bag[k].saturating_sub(1);
            self.bag_total = self.bag_total.saturating_sub(1);
            self.pending &= self.pending.wrapping_sub(1);
            if self.bag_total == 0 {
                self.pending = 0; // C-6.2: an empty bag fills nothing more
            }
            return;
        }
        if id == END_ID {
            // C-4.2, C-7.2: a pass is `end` as the turn's first action.
            let pass = self.left == allowance(self.turn_index);
            self.end_turn(pass);
            return;
        }
        if id < MOVE_BASE {
            // C-5.2
            let i = (id - PICK_BASE) as usize % SPACES;
            let s = u16::from(self.config.board.spaces[i]);
            let kind = u16::from(self.lying[i].saturating_sub(1));
            self.replace(p, s << 8, (s << 8) | (1 + kind));
            self.lying[i] = 0;
            self.demand[p] = self.demand[p].saturating_add(self.space_markers[i]);
            self.space_markers[i] = 0;
            self.left = self.left.saturating_sub(1);
            if self.bag_total > 0 {
                self.picks = self.picks.saturating_add(1);
                if self.picks >= 4 {
                    // C-6.1: markers on the goods still lying, then the empty
                    // spaces wait for draws; the turn goes on afterwards (C-9.2).
                    self.picks = 0;
                    for j in 0..SPACES {
                        if self.lying[j] != 0 {
                            self.space_markers[j] = self.space_markers[j].saturating_add(1);
                        } else {
                            self.pending |= 1 << j;
                        }
                    }
                }
            }
        } else if id < GOOD_BASE {
            // C-5.1
            let r = id - MOVE_BASE;
            let from = (r / sq) as u16;
            let to = (r % sq) as u16;
            let cost = if self.occupied() & (1u64 << to) != 0 { 2 } else { 1 };
            self.replace(p, from << 8, to << 8);
            self.left = self.left.saturating_sub(cost);
        } else if id < STEAL_BASE {
            // C-5.3, C-5.4
            let r = id - GOOD_BASE;
            let to = (r % sq) as u16;
            let r = r / sq;
            let under = r & 1;
            let kind = (r >> 1) % KINDS as u32;
            let from = ((r >> 1) / KINDS as u32) as u16;
            let cargo = if under == 1 { 9 + kind } else { 1 + kind } as u16;
            self.replace(p, (from << 8) | cargo, from << 8);
            self.left = self.left.saturating_sub(1);
            if self.config.board.cities[kind as usize] == to as u8 {
                self.delivered[p][kind as usize] = self.delivered[p][kind as usize].saturating_add(1);
                if self.bag_total == 0 {
                    self.finish(EndKind::Natural); // C-7.1, even mid-turn
                    return;
                }
            } else {
                self.replace(p, to << 8, (to << 8) | (1 + kind as u16));
            }
        } else {
            // C-5.5
            let r = id - STEAL_BASE;
            let kind = (r % KINDS as u32) as u16;
            let r = r / KINDS as u32;
            let s = (r % sq) as u16;
            let q = (r / sq) as usize % MAX_PLAYERS;
            self.replace(q, (s << 8) | (1 + kind), s << 8);
            self.replace(p, s << 8, (s << 8) | (9 + kind));
            self.theft[p] = self.theft[p].saturating_sub(1);
            self.theft[q] = self.theft[q].saturating_add(1);
            self.left = self.left.saturating_sub(1);
        }
        if self.left == 0 {
            self.end_turn(false); // C-4.2: no allowance left
        }
    }

    /// Ends the current turn (C-4.2) and checks the guards of C-7.2.
    fn end_turn(&mut self, pass: bool) {
        if pass && self.turn_index >= 4 {
            self.passes = self.passes.saturating_add(1);
        } else {
            self.passes = 0;
        }
        self.turn_index = self.turn_index.saturating_add(1);
        if self.passes >= self.config.players {
            self.finish(EndKind::Passes);
        } else if self.turn_index >= self.config.max_turns {
            self.finish(EndKind::MaxTurns);
        } else {
            self.left = allowance(self.turn_index); // C-4.1
        }
    }

    fn finish(&mut self, kind: EndKind) {
        self.end = Some(kind);
        self.left = 0;
        self.pending = 0;
    }
}
