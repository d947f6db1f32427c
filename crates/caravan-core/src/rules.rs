//! The rules of Caravan: the start position (C-3), the turn allowance
//! (C-4), legal-action and chance generation (C-3.1, C-5, C-6.1), the checks
//! that say why an action is illegal, the transitions (C-4..C-7), scores
//! and the outcome (C-7.3..C-7.5). The code here cites the rule ids of
//! `docs/rules/caravan.md`.

use boardgame_kit::{ActionBuffer, ChanceOutcome, GameRng, Outcome, Turn};

use crate::action::{Act, Action, ActionList, ChanceList, Decoded, SUPPLY_FROM, action_space};
use crate::board::{Bits, FULL, KINDS, Kind, SPACES, SQUARES, count_sparse, flood, nth_bit, nth_free, nth_sparse};
use crate::config::CaravanConfig;
use crate::error::IllegalReason;
use crate::state::{Caravan, Cargo, EndKind, MAX_CAMELS, MAX_PLAYERS, NO_CAMEL, SUPPLY_LOC};

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

    /// The score of `seat` now (C-7.3, C-7.4).
    pub fn points(&self, seat: usize) -> i32 {
        if seat >= usize::from(self.config.players) {
            return 0;
        }
        let mut s = i32::from(self.demand[seat]);
        for k in Kind::ALL {
            s += i32::from(self.delivered[seat][k as usize]) * k.points();
        }
        if self.config.held_penalty {
            let h = self.held(seat) as i32;
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
        self.picks(un, |pick| {
            out.push(pick);
            None::<()>
        });
        // C-5.3: each distinct (square, good, position) of a laden camel.
        self.goods_sets(p, un, |base, targets| {
            out.push_mask(base, targets);
            None::<()>
        });
        // C-5.5
        self.steals(p, un, |steal| {
            out.push(steal);
            None::<()>
        });
        out.push(Action::END);
    }

    /// A chance outcome drawn by its weights (C-3.1, C-6.1: a cube from the
    /// bag): exactly what [`boardgame_kit::sample_chance`] draws from the
    /// list [`Caravan::chances`] writes — the same 64-bit draw over the total
    /// weight, the same walk over the kinds in index order — without the
    /// list. `None` (and no draw) unless a draw is pending.
    pub(crate) fn sample_draw(&self, rng: &mut GameRng) -> Option<Action> {
        if self.end.is_some() || self.pending == 0 {
            return None;
        }
        rng.weighted_by(self.bag.iter().map(|&n| u64::from(n))).map(Action::draw_at)
    }

    /// The pick-ups (C-5.2) open to a seat whose unladen camels stand on
    /// `un`, in the order [`Caravan::generate`] lists them: each numbered
    /// space, in space order, with a good lying under one of those camels
    /// (a valid board has its spaces on distinct squares). Calls `f` on each
    /// until it returns `Some`.
    #[inline]
    fn picks<T>(&self, un: u64, mut f: impl FnMut(Action) -> Option<T>) -> Option<T> {
        let can_pick = self.lying_at & un;
        if can_pick == 0 {
            return None;
        }
        for (i, &sq) in self.config.board.spaces.iter().enumerate() {
            if can_pick & (1u64 << (sq & 63)) != 0
                && let Some(found) = f(Action::pick_at(i))
            {
                return Some(found);
            }
        }
        None
    }

    /// The moves of goods (C-5.3) of seat `p`, whose unladen camels stand
    /// on `un`, in the order [`Caravan::generate`] lists them: per distinct
    /// laden key (sorted), the first id of its moves and its target squares
    /// (non-empty). Calls `f` on each until it returns `Some`.
    ///
    /// A good moves along a chain to an unladen camel of its owner, so a
    /// chain matters only if it holds both a laden and an unladen square —
    /// and then it has the two on one square or side by side (every square
    /// of a chain holds one or the other). So most positions are ruled out
    /// at once, and the chains that matter are flooded from those unladen
    /// squares only.
    #[inline]
    fn goods_sets<T>(&self, p: usize, un: u64, f: impl FnMut(u32, u64) -> Option<T>) -> Option<T> {
        let touching = self.laden_near[p] & un;
        if touching == 0 { None } else { self.goods_sets_from(p, un, touching, f) }
    }

    /// [`Caravan::goods_sets`] once some unladen square (`touching`) holds
    /// or touches a laden camel.
    #[inline(never)]
    fn goods_sets_from<T>(
        &self,
        p: usize,
        un: u64,
        touching: u64,
        mut f: impl FnMut(u32, u64) -> Option<T>,
    ) -> Option<T> {
        let mine = self.occ[p];
        let mut chains = [0u64; MAX_CAMELS];
        let mut n_chains = 0;
        let mut reach = 0u64;
        let mut rest = touching;
        while rest != 0 && n_chains < MAX_CAMELS {
            let chain = flood(mine, rest & rest.wrapping_neg());
            chains[n_chains] = chain;
            n_chains += 1;
            reach |= chain;
            rest &= !chain;
        }
        let mut prev = NO_CAMEL;
        for &key in &self.loads[p] {
            let loc = key >> 8;
            if loc >= SUPPLY_LOC {
                break;
            }
            let bit = 1u64 << loc;
            if key == prev || reach & bit == 0 {
                continue;
            }
            prev = key;
            let cargo = key & 0xFF;
            let chain = chains[..n_chains].iter().copied().find(|c| c & bit != 0).unwrap_or(0);
            let under = cargo >= 9;
            let mut targets = chain & un;
            if !under {
                targets &= !bit; // a good on top cannot stay in its square
            }
            if targets != 0
                && let Some(found) = f(Action::goods_from(u32::from(loc), u32::from((cargo - 1) & 7), under), targets)
            {
                return Some(found);
            }
        }
        None
    }

    /// The steals (C-5.5) open to seat `p`, whose unladen camels stand on
    /// `un`, in the order [`Caravan::generate`] lists them: by victim, then
    /// by the victim's distinct keys with a good on top under an unladen
    /// camel of `p`. Calls `f` on each until it returns `Some`.
    #[inline]
    fn steals<T>(&self, p: usize, un: u64, f: impl FnMut(Action) -> Option<T>) -> Option<T> {
        // first ruled out at once over everyone's goods on top
        let tops = self.tops[0] | self.tops[1] | self.tops[2] | self.tops[3];
        if self.theft[p] == 0 || tops & un == 0 { None } else { self.steals_from(p, un, f) }
    }

    /// [`Caravan::steals`] once some good on top lies under an unladen
    /// camel of `p`.
    #[inline(never)]
    fn steals_from<T>(&self, p: usize, un: u64, mut f: impl FnMut(Action) -> Option<T>) -> Option<T> {
        for q in 0..usize::from(self.config.players).min(MAX_PLAYERS) {
            if q == p || self.tops[q] & un == 0 {
                continue;
            }
            let mut prev = NO_CAMEL;
            for &key in &self.loads[q] {
                let loc = key >> 8;
                if loc >= SUPPLY_LOC {
                    break;
                }
                let cargo = key & 0xFF;
                if (1..=8).contains(&cargo) && key != prev && un & (1u64 << loc) != 0 {
                    prev = key;
                    if let Some(found) = f(Action::steal_at(q as u32, u32::from(loc), u32::from(cargo - 1))) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// A uniformly random legal action: exactly `list[rng.index(list.len())]`
    /// of the list [`Caravan::generate`] writes (the same action, the same
    /// draws), without writing it. The legal actions are counted per source
    /// in the order `generate` lists them — camel moves (C-5.1), pick-ups
    /// (C-5.2), moves of goods (C-5.3), steals (C-5.5), `end` — the index is
    /// drawn over their total, and only the index-th action is decoded.
    /// `None` (and no draw) when nothing is legal.
    pub(crate) fn random_decision(&self, rng: &mut GameRng) -> Option<Action> {
        if self.end.is_some() {
            return None;
        }
        if self.pending != 0 {
            // the listed draws, one per kind still in the bag
            let mut kinds = 0u64;
            for (k, &n) in self.bag.iter().enumerate() {
                kinds |= u64::from(n > 0) << k;
            }
            if kinds == 0 {
                return None;
            }
            let i = rng.index(kinds.count_ones() as usize) as u32;
            return Some(Action::draw_at(nth_bit(kinds, i) as usize));
        }
        let p = self.to_move();
        let un = self.unladen[p];
        let supply = self.supply[p] > 0;
        // C-5.1: with two actions left, 49 targets from the supply and 48
        // from a square; with one, the free squares from every source.
        let two = self.left >= 2;
        let squares = u32::from(self.un_squares[p]);
        let (moves, free) = if two {
            (u32::from(supply) * SQUARES as u32 + squares * (SQUARES as u32 - 1), 0)
        } else {
            let free = FULL & !self.occupied();
            ((squares + u32::from(supply)) * free.count_ones(), free)
        };
        // C-5.2: only where a good lies under an unladen camel of the mover
        // (a valid board has its spaces on distinct squares)
        let pick_count = count_sparse(self.lying_at & un);
        let mut good_count = 0;
        self.goods_sets(p, un, |_, targets| {
            good_count += targets.count_ones();
            None::<()>
        });
        let mut steal_count = 0;
        self.steals(p, un, |_| {
            steal_count += 1;
            None::<()>
        });
        let total = moves + pick_count + good_count + steal_count + 1;
        let mut i = rng.index(total as usize) as u32;
        if i < moves {
            let (from, to) = if two {
                if supply && i < SQUARES as u32 {
                    (SUPPLY_FROM, i)
                } else {
                    let i = i - u32::from(supply) * SQUARES as u32;
                    // the (i / 48)-th of at most 6 unladen squares
                    let s = nth_sparse(un, i / (SQUARES as u32 - 1));
                    let t = i % (SQUARES as u32 - 1);
                    (s, t + u32::from(t >= s))
                }
            } else {
                let per = free.count_ones();
                let (source, t) = (i / per, nth_free(!free & FULL, i % per));
                let s = match (supply, source) {
                    (true, 0) => SUPPLY_FROM,
                    (true, n) => nth_sparse(un, n - 1),
                    (false, n) => nth_sparse(un, n),
                };
                (s, t)
            };
            return Some(Action::raw(Action::moves_from(from) + to));
        }
        i -= moves;
        if i < pick_count {
            return self.picks(un, |pick| {
                if i == 0 {
                    Some(pick)
                } else {
                    i -= 1;
                    None
                }
            });
        }
        i -= pick_count;
        if i < good_count {
            return self.goods_sets(p, un, |base, targets| {
                let c = targets.count_ones();
                if i < c {
                    Some(Action::raw(base + nth_bit(targets, i)))
                } else {
                    i -= c;
                    None
                }
            });
        }
        i -= good_count;
        if i < steal_count {
            return self.steals(p, un, |steal| {
                if i == 0 {
                    Some(steal)
                } else {
                    i -= 1;
                    None
                }
            });
        }
        Some(Action::END)
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
                if !self.loads[p].contains(&key) {
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
                if !self.loads[q].contains(&key) {
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
                self.lying_at |= 1u64 << (self.config.board.spaces[i] & 63);
                self.bag[k] = self.bag[k].saturating_sub(1);
                self.bag_total = self.bag_total.saturating_sub(1);
                self.pending &= self.pending.wrapping_sub(1);
                if self.bag_total == 0 {
                    self.pending = 0; // C-6.2: an empty bag fills nothing more
                }
                if self.pending == 0 && self.left == 0 {
                    // C-4.2, C-6.1: the pick-up that triggered this refill
                    // used the last allowance; the turn ends once the draws
                    // are made (on the last turn, before the game ends).
                    self.end_turn(false);
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
                self.remove_unladen(p, u32::from(s));
                self.add_load(p, (s << 8) | (1 + kind));
                self.lying[i] = 0;
                self.lying_at &= !(1u64 << (s & 63));
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
                let cost = if self.occupied() & (1u64 << (to & 63)) != 0 { 2 } else { 1 };
                if from == SUPPLY_FROM {
                    self.supply[p] = self.supply[p].saturating_sub(1);
                } else {
                    self.remove_unladen(p, from);
                }
                self.add_unladen(p, to);
                self.left = self.left.saturating_sub(cost);
            }
            Decoded::Good { from, kind, under, to } => {
                // C-5.3, C-5.4
                let cargo = if under { 9 + kind } else { 1 + kind } as u16;
                self.remove_load(p, ((from as u16) << 8) | cargo);
                self.add_unladen(p, from);
                self.left = self.left.saturating_sub(1);
                if self.config.board.cities[kind as usize % KINDS] == to as u8 {
                    self.delivered[p][kind as usize % KINDS] =
                        self.delivered[p][kind as usize % KINDS].saturating_add(1);
                    if self.bag_total == 0 {
                        self.finish(EndKind::Natural); // C-7.1, even mid-turn
                        return;
                    }
                } else {
                    self.remove_unladen(p, to);
                    self.add_load(p, ((to as u16) << 8) | (1 + kind as u16));
                }
            }
            Decoded::Steal { victim, square, kind } => {
                // C-5.5
                let (s, kind) = (square as u16, kind as u16);
                let q = victim as usize % MAX_PLAYERS;
                self.remove_load(q, (s << 8) | (1 + kind));
                self.add_unladen(q, square);
                self.remove_unladen(p, square);
                self.add_load(p, (s << 8) | (9 + kind));
                self.theft[p] = self.theft[p].saturating_sub(1);
                self.theft[q] = self.theft[q].saturating_add(1);
                self.left = self.left.saturating_sub(1);
            }
        }
        if self.left == 0 && self.pending == 0 {
            // C-4.2: no allowance left. A refill triggered by this action
            // (C-6.1) is drawn first: the turn ends after its last draw.
            self.end_turn(false);
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
        self.refresh_seat();
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
