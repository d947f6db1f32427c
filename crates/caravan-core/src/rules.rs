//! The rules of Caravan: the start position (C-3), the turn allowance
//! (C-4), legal-action and chance generation (C-3.1, C-5, C-6.1), the checks
//! that say why an action is illegal, the transitions (C-4..C-7), scores
//! and the outcome (C-7.3..C-7.5). The code here cites the rule ids of
//! `docs/rules/caravan.md`.

use boardgame_kit::{ActionBuffer, ChanceOutcome, Outcome, Turn};

use crate::action::{Act, Action, ActionList, ChanceList, Decoded, SUPPLY_FROM, action_space};
use crate::board::{Bits, FULL, KINDS, Kind, SPACES, flood};
use crate::config::CaravanConfig;
use crate::error::IllegalReason;
use crate::state::{Caravan, Cargo, EndKind, MAX_PLAYERS, NO_CAMEL, SUPPLY_LOC};

/// C-4.1: the allowance of the `t`-th turn, `min(t + 1, 4)`.
#[inline]
pub const fn allowance(t: u32) -> u8 {
    if t >= 3 { 4 } else { t as u8 + 1 }
}

impl Caravan {
    /// The position of C-3 before its draws: camels in supply, a demand
    /// marker on spaces 1, 2, 7 and 8 (C-3.2), the 8 setup draws pending
    /// (C-3.1), seat 0 to move first with 1 action (C-3.3, C-4.1).
    pub(crate) fn initial(config: CaravanConfig) -> Caravan {
        let mut s = Caravan::blank(config);
        s.space_markers = [1, 1, 0, 0, 0, 0, 1, 1]; // C-3.2
        s.pending = 0xFF; // C-3.1
        s
    }

    /// Whose turn it is (C-3.3, C-7): the game is over, a good must be
    /// drawn (C-3.1, C-6.1), or the seat to move decides.
    #[inline]
    pub(crate) fn whose_turn(&self) -> Turn {
        if self.end.is_some() {
            Turn::Terminal
        } else if self.pending != 0 {
            Turn::Chance
        } else {
            Turn::Player(self.to_move())
        }
    }

    /// The turns played, counting every player's turns (C-4.1): the turns
    /// completed (the [`Caravan::turn_index`] of the turn in progress), plus
    /// the turn a natural end interrupts — C-7.1 ends the game in the middle
    /// of a turn, while the guards of C-7.2 end it after a whole one.
    pub fn turns_played(&self) -> u32 {
        let cut_short = self.end == Some(EndKind::Natural);
        self.turn_index.saturating_add(u32::from(cut_short))
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

    /// The outcome once the game is over (C-7.5): most points, then most
    /// goods delivered, else a draw among the best.
    pub(crate) fn result(&self) -> Option<Outcome> {
        self.end?;
        let n = usize::from(self.config.players).min(MAX_PLAYERS);
        let mut keys = [(0, 0); MAX_PLAYERS];
        for (p, key) in keys.iter_mut().enumerate().take(n) {
            *key = (self.points(p), self.delivered_count(p));
        }
        Outcome::from_best(&keys[..n])
    }

    /// The chance outcomes (C-3.1, C-6.1): each kind still in the bag,
    /// weighted by its cubes; none unless a draw is pending.
    pub(crate) fn chances(&self, out: &mut ChanceList) {
        out.clear();
        if self.end.is_none() && self.pending != 0 {
            for k in 0..KINDS {
                if self.bag[k] > 0 {
                    out.push(ChanceOutcome { action: Action::draw_at(k), weight: u32::from(self.bag[k]) });
                }
            }
        }
    }

    /// The legal actions of the seat to move at a decision (not at a
    /// chance node, not once the game is over), written into `out` (see
    /// [`boardgame_kit::Game::legal_actions`]).
    #[inline]
    pub(crate) fn generate(&self, out: &mut ActionList) {
        out.clear();
        let p = self.to_move();
        // C-5.1: cost 1 to a free square, 2 to an occupied one. With two
        // actions left every other square is a target: the ids of one source
        // are then a block of 49 (48 from a square) consecutive ids.
        let un = self.unladen[p];
        if self.left >= 2 {
            if self.supply[p] > 0 {
                out.push_block(Action::moves_from(SUPPLY_FROM));
            }
            for s in Bits(un) {
                out.push_block_except(Action::moves_from(u32::from(s)), u32::from(s));
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
                let base = Action::moves_from(s);
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
                out.push(Action::pick_at(i));
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
            out.push_mask(Action::goods_from(u32::from(loc), kind, under), t);
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
                        out.push(Action::steal_at(q as u32, u32::from(loc), u32::from(cargo - 1)));
                    }
                }
            }
        }
        out.push(Action::END);
    }

    /// Checks `action` against the rules, saying why it is illegal.
    pub(crate) fn check(&self, action: Action) -> Result<(), IllegalReason> {
        if self.end.is_some() {
            return Err(IllegalReason::GameOver);
        }
        if action.id() >= action_space(self.config.players) {
            return Err(IllegalReason::OutOfSpace);
        }
        let act = action.act();
        if self.pending != 0 {
            return match act {
                Act::Draw(k) if self.bag[k as usize] > 0 => Ok(()),
                Act::Draw(_) => Err(IllegalReason::NotInBag),
                _ => Err(IllegalReason::ChanceNode),
            };
        }
        let p = self.to_move();
        let un = self.unladen[p];
        match act {
            Act::Draw(_) => Err(IllegalReason::NotChance),
            Act::End => Ok(()),
            Act::Move { from, to } => {
                match from {
                    None if self.supply[p] == 0 => return Err(IllegalReason::SupplyEmpty),
                    Some(s) if un & s.bit() == 0 => return Err(IllegalReason::NoCamelAtSource),
                    Some(s) if s == to => return Err(IllegalReason::SameSquare),
                    _ => {}
                }
                if self.left < 2 && self.occupied() & to.bit() != 0 {
                    return Err(IllegalReason::NeedsTwoActions);
                }
                Ok(())
            }
            Act::Pick { space } => {
                let i = usize::from(space.saturating_sub(1)) % SPACES;
                if self.lying[i] == 0 {
                    return Err(IllegalReason::NoGoodLying);
                }
                if un & (1u64 << (self.config.board.spaces[i] & 63)) == 0 {
                    return Err(IllegalReason::NoUnladenCamel);
                }
                Ok(())
            }
            Act::Good { kind, under, from, to } => {
                let cargo = if under { Cargo::Under(kind) } else { Cargo::Top(kind) };
                let key = (u16::from(from.index()) << 8) | cargo.code();
                if !self.camels[p].contains(&key) {
                    return Err(IllegalReason::NoSuchGood);
                }
                if !under && from == to {
                    return Err(IllegalReason::TopSameSquare);
                }
                if un & to.bit() == 0 {
                    return Err(IllegalReason::NoTarget);
                }
                if flood(self.occ[p], from.bit()) & to.bit() == 0 {
                    return Err(IllegalReason::NoChain);
                }
                Ok(())
            }
            Act::Steal { kind, square, victim } => {
                let q = usize::from(victim);
                if q == p || q >= usize::from(self.config.players) {
                    return Err(IllegalReason::BadVictim);
                }
                if self.theft[p] == 0 {
                    return Err(IllegalReason::NoTheftMarker);
                }
                let key = (u16::from(square.index()) << 8) | Cargo::Top(kind).code();
                if !self.camels[q].contains(&key) {
                    return Err(IllegalReason::NothingToSteal);
                }
                if un & square.bit() == 0 {
                    return Err(IllegalReason::NoThief);
                }
                Ok(())
            }
        }
    }

    /// Plays a legal action (the rules' transitions, C-3..C-7).
    #[inline]
    pub(crate) fn play(&mut self, action: Action) {
        let p = self.to_move();
        match action.decode() {
            Decoded::Draw { kind } => {
                // C-3.1 / C-6.1: a draw onto the next pending space, in order.
                let k = kind as usize % KINDS;
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
            Decoded::End => {
                // C-4.2, C-7.2: a pass is `end` as the turn's first action.
                let pass = self.left == allowance(self.turn_index);
                self.end_turn(pass);
                return;
            }
            Decoded::Pick { index } => {
                // C-5.2
                let i = index as usize % SPACES;
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
            }
            Decoded::Move { from, to } => {
                // C-5.1 (`from` is the supply's location for a camel from the supply)
                let (from, to) = (from as u16, to as u16);
                let cost = if self.occupied() & (1u64 << to) != 0 { 2 } else { 1 };
                self.replace(p, from << 8, to << 8);
                self.left = self.left.saturating_sub(cost);
            }
            Decoded::Good { from, kind, under, to } => {
                // C-5.3, C-5.4
                let (from, to) = (from as u16, to as u16);
                let cargo = if under { 9 + kind } else { 1 + kind } as u16;
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
            }
            Decoded::Steal { victim, square, kind } => {
                // C-5.5
                let (s, kind) = (square as u16, kind as u16);
                let q = victim as usize % MAX_PLAYERS;
                self.replace(q, (s << 8) | (1 + kind), s << 8);
                self.replace(p, s << 8, (s << 8) | (9 + kind));
                self.theft[p] = self.theft[p].saturating_sub(1);
                self.theft[q] = self.theft[q].saturating_add(1);
                self.left = self.left.saturating_sub(1);
            }
        }
        if self.left == 0 {
            self.end_turn(false); // C-4.2: no allowance left
        }
    }

    /// Ends the current turn (C-4.2) and checks the guards of C-7.2.
    #[inline]
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

    /// Ends the game (C-7.1, C-7.2): no allowance, no draws left.
    fn finish(&mut self, kind: EndKind) {
        self.end = Some(kind);
        self.left = 0;
        self.pending = 0;
    }
}
