//! The engine's agents: [`CaravanHeuristic`], a search-free planner, and
//! [`tuned_ismcts`], the kit's ISMCTS tuned for Caravan (`ismcts-h` in
//! `docs/bots.md`); `impl Bots for Caravan` (in `net`) names them for every front end.

use arrayvec::ArrayVec;
use boardgame_kit::{Agent, Budget, Evaluation, Game, GameRng, IsMctsAgent, Turn};

use crate::action::Action;
use crate::board::{FULL, KINDS, Kind, SIDE, SPACES, SQUARES, Square, flood, neighbours};
use crate::state::{Caravan, SUPPLY_LOC};

/// The largest path cost the planner tracks (a path of at most 13 squares
/// on the 7×7 board, each costing at most 2 actions, C-5.1).
const MAX_COST: usize = 28;
/// "Unreachable" in the cost maps.
const INF: u8 = u8::MAX;
/// Projects considered per decision: laden goods (≤ 6), lying goods (≤ 8),
/// steals (≤ 18).
const MAX_PROJECTS: usize = 32;

/// A heuristic Caravan player: a planner with no search, fast enough to be
/// a rollout policy.
///
/// Every decision it re-plans from the position (it keeps no memory):
///
/// 1. **Deliver** when a good of its own can land on a camel in the city that
///    wants it (C-5.4) — rare goods first. Once the bag is empty a delivery
///    ends the game (C-7.1), so it then delivers only if that wins.
/// 2. Otherwise it ranks **projects** by points per action: finishing a
///    good it carries (its kind's points), picking up a lying good and
///    delivering it (points plus the demand markers on its space, C-5.2,
///    C-7.3), or stealing a good on top of an opponent's camel (C-5.5; its
///    points plus a bonus for denying them, only while it holds a theft
///    marker). A project's cost is the actions it still needs: placing a
///    camel on the space (or the victim's square), the pick-up or steal,
///    the camels that complete a chain to the city and the final move of the
///    good. The chain cost is an exact cheapest path over the bitboards
///    (1 action per empty square, 2 per occupied one, 0 for squares already
///    holding its camels, C-5.1, C-5.3).
/// 3. It plays the next step of the best project it can afford this turn:
///    the pick-up or steal when its unladen camel is there, else the camel
///    placement (from the supply first, then from a camel that no chain
///    needs) on the square of the cheapest path adjacent to the good's
///    chain, an empty square before an occupied one. With no camel to spare
///    it moves the good along its chain to the camel nearest its city, which
///    frees the camels behind it.
/// 4. When no project has an affordable step it ends the turn (`end`)
///    instead of wandering.
///
/// It plays deterministically (ties broken by a fixed order) unless
/// [`CaravanHeuristic::epsilon`] asks for some random moves, which come from
/// the `rng` it is given. A decision allocates nothing.
///
/// ```
/// use boardgame_kit::{Agent, RandomAgent, play_game};
/// use caravan_core::{Caravan, CaravanConfig, CaravanHeuristic};
///
/// let mut bot = CaravanHeuristic::default();
/// let mut random = RandomAgent;
/// let mut agents: [&mut dyn Agent<Caravan>; 2] = [&mut bot, &mut random];
/// let game = play_game::<Caravan>(&CaravanConfig::with_players(2), &mut agents, 1).unwrap();
/// assert!(game.state.points(0) > game.state.points(1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct CaravanHeuristic {
    epsilon: f64,
}

impl CaravanHeuristic {
    /// The deterministic planner (no random moves).
    pub fn new() -> Self {
        CaravanHeuristic::default()
    }

    /// Plays a uniformly random legal action with probability `epsilon`
    /// (clamped to `[0, 1]`; non-finite counts as 0) and the plan otherwise —
    /// a way to diversify rollouts when the planner is a rollout policy.
    #[must_use]
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = if epsilon.is_finite() { epsilon.clamp(0.0, 1.0) } else { 0.0 };
        self
    }

    /// The planned action for `seat` in `state` (no randomness). Returns
    /// [`Action::END`] when it is not `seat`'s decision; otherwise the
    /// action is always legal.
    pub fn plan(&self, state: &Caravan, seat: usize) -> Action {
        if state.turn() != Turn::Player(seat) {
            return Action::END;
        }
        Planner::new(state, seat).decide()
    }
}

impl Agent<Caravan> for CaravanHeuristic {
    fn name(&self) -> String {
        "heuristic".to_string()
    }

    fn act(&mut self, state: &Caravan, seat: usize, rng: &mut GameRng) -> Action {
        if self.epsilon > 0.0 && rng.unit_f64() < self.epsilon {
            let mut list = <Caravan as Game>::ActionList::default();
            state.legal_actions(&mut list);
            if !list.is_empty() {
                return list[rng.index(list.len())];
            }
        }
        self.plan(state, seat)
    }
}

/// [`tuned_ismcts`]: rollouts stop after this many actions (chance
/// included) and the state reached is scored.
const TUNED_ROLLOUT_DEPTH: usize = 20;
/// [`tuned_ismcts`]: truncated rollouts are scored by score margins on this
/// scale (points; a common good is worth 3, a rare one 6, C-7.3).
const TUNED_MARGIN_SCALE: f64 = 30.0;
/// [`tuned_ismcts`]: the weight of the heuristic's progressive bias.
const TUNED_PRIOR_WEIGHT: f64 = 1.0;
/// [`tuned_ismcts`]: the UCB1 exploration constant.
const TUNED_EXPLORATION: f64 = 0.1;

/// The strongest Caravan agent of `docs/bots.md` (`ismcts-h`), with
/// `budget` per decision: the kit's information-set MCTS with
/// [`CaravanHeuristic`] as the tree's prior (its choice is expanded first,
/// with a progressive bias of weight 1 and progressive widening) and as the
/// rollout policy of every seat; rollouts are cut after 20 actions and
/// scored by score margins on a scale of 30 points; exploration 0.1. With
/// 1000 iterations it wins about 91% of 2-player games against the
/// heuristic and all against random play (`docs/bots.md`).
///
/// ```
/// use boardgame_kit::{Agent, Budget, Game, GameRng};
/// use caravan_core::{Caravan, CaravanConfig, tuned_ismcts};
///
/// let mut agent = tuned_ismcts(Budget::Iterations(50));
/// let mut state = Caravan::new_game(&CaravanConfig::with_players(2)).unwrap();
/// let mut rng = GameRng::new(1);
/// let mut chances = <Caravan as Game>::ChanceList::default();
/// while state.turn() == boardgame_kit::Turn::Chance {
///     let draw = boardgame_kit::sample_chance(&state, &mut rng, &mut chances).unwrap();
///     state.apply(draw).unwrap();
/// }
/// let action = agent.act(&state, 0, &mut rng);
/// assert!(state.validate(action).is_ok());
/// ```
pub fn tuned_ismcts(budget: Budget) -> IsMctsAgent<Caravan> {
    IsMctsAgent::new(budget)
        .prior_agent(Box::new(CaravanHeuristic::new()), TUNED_PRIOR_WEIGHT)
        .rollout_agent(Box::new(CaravanHeuristic::new()))
        .rollout_depth(TUNED_ROLLOUT_DEPTH)
        .evaluation(Evaluation::ScoreMargin(TUNED_MARGIN_SCALE))
        .exploration(TUNED_EXPLORATION)
}

/// `(row, col)` of every square index below 64 (`index / 7`, `index % 7`),
/// so that [`manhattan`] needs no division.
const ROW_COL: [(u8, u8); 64] = {
    let mut t = [(0u8, 0u8); 64];
    let mut i = 0;
    while i < 64 {
        t[i] = ((i / SIDE) as u8, (i % SIDE) as u8);
        i += 1;
    }
    t
};

/// The distance between squares `a` and `b` in orthogonal steps (both are
/// square indices, below 49).
#[inline]
fn manhattan(a: u8, b: u8) -> u8 {
    let (ar, ac) = ROW_COL[usize::from(a) & 63];
    let (br, bc) = ROW_COL[usize::from(b) & 63];
    ar.abs_diff(br) + ac.abs_diff(bc)
}

/// `sq` as a square index: a validated board has every square below 49
/// (C-2.4), others are reduced modulo 49.
#[inline]
fn on_board(sq: u8) -> u8 {
    if usize::from(sq) < SQUARES { sq } else { sq % SQUARES as u8 }
}

/// What a project is about.
#[derive(Clone, Copy, Debug)]
enum Goal {
    /// Deliver the good of `kind` carried on `loc` (`under`: stolen).
    Carry { loc: u8, kind: u8, under: bool },
    /// Pick up the good lying on numbered space `space` (index `0..8`).
    Pick { space: u8 },
    /// Steal the `kind` on top of `victim`'s camel on `loc`.
    Steal { loc: u8, kind: u8, victim: u8 },
}

/// A project and what it costs: `cost` is `j` plus actions known without the
/// cost map, where `j` is the cost map's cost of `set` (the good's chain, the
/// space, the victim's square) towards the city of `kind`. Until `exact`,
/// `j` (and so `cost`) is a lower bound: the map has not grown far enough to
/// tell, and is grown only while the project could still come first.
#[derive(Clone, Copy, Debug)]
struct Project {
    goal: Goal,
    value: u32,
    cost: u32,
    set: u64,
    kind: u8,
    j: u8,
    exact: bool,
}

impl Project {
    /// A project needing `extra` actions besides the map's cost of `set`,
    /// which is at least `from`; `j` is what `map`'s made layers tell.
    fn new(goal: Goal, value: u32, extra: u32, set: u64, kind: u8, map: &CostMap, from: u8) -> Self {
        let (j, exact) = map.known(set, from);
        Project { goal, value, cost: extra + u32::from(j), set, kind, j, exact }
    }

    /// Whether `self` is a better deal than `other`: more points per action,
    /// then fewer actions (earlier enumeration wins ties). With a lower bound
    /// for the cost, whether it could be: a project's exact cost is never
    /// better than its bound (the value is positive).
    fn better(&self, other: &Project) -> bool {
        let a = self.value * other.cost;
        let b = other.value * self.cost;
        a > b || (a == b && self.cost < other.cost)
    }
}

/// Whether project `a` comes before project `b` in the planner's order: a
/// better deal, or as good and earlier (`a` and `b` are positions).
fn ahead(projects: &[Project], a: usize, b: usize) -> bool {
    projects[a].better(&projects[b]) || (!projects[b].better(&projects[a]) && a < b)
}

/// The largest cost at which project `a` would still come before project
/// `b` (see [`ahead`]), `None` if not even at its present cost.
fn last_ahead(projects: &[Project], a: usize, b: usize) -> Option<u32> {
    let (pa, pb) = (&projects[a], &projects[b]);
    let at = |cost: u32| {
        let x = Project { cost, ..*pa };
        x.better(pb) || (!pb.better(&x) && a < b)
    };
    if !at(pa.cost) {
        return None;
    }
    // ahead ⇔ value_a · cost_b ≥ value_b · cost (up to ties): start at the
    // ratio's bound and step down to the exact answer
    let mut c = (pa.value * pb.cost / pb.value.max(1)).max(pa.cost);
    while !at(c) {
        c -= 1;
    }
    Some(c)
}

/// The reach sets towards one city, grown one layer at a time: layer `j`
/// holds every square from which a chain to the city costs at most `j` more
/// actions, for a player whose camels stand on `own` (unladen ones on `un`),
/// with camels of anyone on `occ`. Entering an empty square costs 1, an
/// occupied one 2, one of `own` 0 (C-5.1) — except the city, which needs an
/// unladen camel of the player to receive the good (C-5.3), so laden camels
/// of the player there do not count. The layers are cumulative and reach the
/// whole board within [`MAX_COST`] (a cheapest path has at most 13 squares,
/// each costing at most 2).
///
/// Layer `j` is layer `j - 1`, its empty neighbours and the occupied (not
/// free) neighbours of layer `j - 2`, closed under adjacency through the free
/// squares. The city enters as if a square of layer 0 lay next to it: every
/// layer's neighbour set includes the city, so it joins layer 0 when free,
/// layer 1 when empty and layer 2 when occupied. The neighbours of a layer
/// are computed once and used by the next two layers.
#[derive(Clone, Copy)]
struct Growth {
    /// The city's bit.
    cbit: u64,
    /// The squares entered for free (the player's camels, see above).
    own0: u64,
    /// The squares entered for 1.
    empty: u64,
    /// The squares entered for 2.
    occ2: u64,
    /// The last layer made (none yet: 0).
    prev1: u64,
    /// The neighbours of the last layer made (none yet: 0).
    n1: u64,
    /// The neighbours of the layer before it (none yet: 0).
    n2: u64,
}

impl Growth {
    /// The growth towards city square `c` (see [`Growth`]).
    fn new(c: u8, own: u64, un: u64, occ: u64) -> Self {
        let cbit = 1u64 << c;
        let own0 = if un & cbit != 0 { own } else { own & !cbit };
        Growth { cbit, own0, empty: FULL & !occ, occ2: occ & !own0, prev1: 0, n1: 0, n2: 0 }
    }

    /// Makes the next layer and returns it (after the whole board, the whole
    /// board again).
    #[inline]
    fn next_layer(&mut self) -> u64 {
        let mut l = self.prev1 | (self.n1 & self.empty) | (self.n2 & self.occ2);
        let mut n = neighbours(l) | self.cbit;
        // close under adjacency through the free squares
        loop {
            let grow = n & self.own0 & !l;
            if grow == 0 {
                break;
            }
            l |= grow;
            n |= neighbours(grow);
        }
        self.n2 = self.n1;
        self.n1 = n;
        self.prev1 = l;
        l
    }

    /// The cheapest cost from a square of `set` when it is at most `limit`,
    /// else [`INF`], growing no further than layer `limit`.
    fn cost_within(mut self, set: u64, limit: u8) -> u8 {
        if set & FULL == 0 {
            return INF; // no layer meets it
        }
        let last = usize::from(limit).min(MAX_COST - 1);
        for j in 0..=last {
            if self.next_layer() & set != 0 {
                return j as u8;
            }
        }
        INF
    }
}

/// The cost map towards one city (see [`Growth`]), its layers made on
/// demand: a query grows it only until it has the answer, and later queries
/// reuse the layers made.
#[derive(Clone)]
struct CostMap {
    /// The layers made so far, from layer 0.
    layers: ArrayVec<u64, MAX_COST>,
    growth: Growth,
}

impl CostMap {
    fn new(c: u8, own: u64, un: u64, occ: u64) -> Self {
        CostMap { layers: ArrayVec::new(), growth: Growth::new(c, own, un, occ) }
    }

    /// The cheapest cost from any square of `set`, [`INF`] if none.
    fn cost_of(&mut self, set: u64) -> u8 {
        if set & FULL == 0 {
            return INF; // no layer meets it
        }
        // one layer does before the layers run out, the last being the whole board
        self.first_in(set, 0, MAX_COST as u8 - 1).unwrap_or(INF)
    }

    /// Layer `j`, which a query answered with `j` has made.
    #[inline]
    fn layer(&self, j: u8) -> u64 {
        self.layers[usize::from(j)]
    }

    /// What the layers made so far tell about the cost of `set`, known to be
    /// at least `from`: `(j, true)` when `j` is the cost, `(j, false)` when
    /// it is only known to be at least `j`.
    fn known(&self, set: u64, from: u8) -> (u8, bool) {
        let len = self.layers.len() as u8;
        match self.layers.last() {
            Some(&last) if last & set != 0 => {
                // the layers are cumulative: the first one meeting `set`
                let j = (usize::from(from)..self.layers.len()).find(|&j| self.layers[j] & set != 0);
                j.map_or((from, false), |j| (j as u8, true))
            }
            _ => (from.max(len), false),
        }
    }

    /// The first layer from `from` to `to` that meets `set`, making the
    /// layers up to it (up to `to` when none does); `set` meets none of the
    /// layers below `from`.
    fn first_in(&mut self, set: u64, from: u8, to: u8) -> Option<u8> {
        let to = usize::from(to).min(MAX_COST - 1);
        if let Some(&last) = self.layers.last()
            && last & set != 0
        {
            // the layers are cumulative: a made one meets `set`
            let made = self.layers.len();
            return (usize::from(from)..made.min(to + 1)).find(|&j| self.layers[j] & set != 0).map(|j| j as u8);
        }
        // Grow (in a local copy, kept in registers) until a layer meets `set`.
        let mut g = self.growth;
        let mut found = None;
        while self.layers.len() <= to {
            let l = g.next_layer();
            self.layers.push(l);
            if l & set != 0 {
                found = Some((self.layers.len() - 1) as u8);
                break;
            }
        }
        self.growth = g;
        found
    }

    /// Whether layer `j` meets `set`, making the layers up to `j`. (Past the
    /// last layer, the whole board: any square meets it.)
    fn meets(&mut self, set: u64, j: u8) -> bool {
        while self.layers.len() <= usize::from(j) && !self.layers.is_full() {
            let l = self.growth.next_layer();
            self.layers.push(l);
        }
        self.layers.get(usize::from(j)).map_or(set & FULL != 0, |&l| l & set != 0)
    }
}

struct Planner<'a> {
    s: &'a Caravan,
    p: usize,
    own: u64,
    un: u64,
    occ: u64,
    /// Squares with camels of the other players.
    others: u64,
    left: u8,
    /// The cost maps made in this decision (at most one per kind)…
    maps: ArrayVec<CostMap, KINDS>,
    /// …and, per kind, the index of its map in `maps` (`u8::MAX`: none yet).
    map_of: [u8; KINDS],
    /// Squares with two or more unladen camels of the mover.
    dup: u64,
}

impl<'a> Planner<'a> {
    fn new(s: &'a Caravan, p: usize) -> Self {
        // two or more unladen camels on a square: its count has the bit of
        // 2 or of 4
        let dup = s.un_count[p][1] | s.un_count[p][2];
        Planner {
            s,
            p,
            own: s.occ[p],
            un: s.unladen[p],
            occ: s.occupied(),
            others: (0..s.occ.len()).filter(|&q| q != p).fold(0, |acc, q| acc | s.occ[q]),
            left: s.left,
            maps: ArrayVec::new(),
            map_of: [u8::MAX; KINDS],
            dup,
        }
    }

    /// The square of the city of `kind`.
    #[inline]
    fn city(&self, kind: u8) -> u8 {
        on_board(self.s.config.board.cities[usize::from(kind) % KINDS])
    }

    /// The action cost of a camel entering `sq` (C-5.1).
    #[inline]
    fn enter(&self, sq: u8) -> u8 {
        if self.occ & (1u64 << sq) != 0 { 2 } else { 1 }
    }

    /// The cost map towards the city of `kind` (one per decision, its layers
    /// made as queries need them).
    #[inline]
    fn map(&mut self, kind: u8) -> &mut CostMap {
        let k = usize::from(kind) % KINDS;
        if self.map_of[k] == u8::MAX {
            self.map_of[k] = self.maps.len() as u8;
            self.maps.push(CostMap::new(self.city(kind), self.own, self.un, self.occ));
        }
        &mut self.maps[usize::from(self.map_of[k])]
    }

    fn decide(mut self) -> Action {
        let s = self.s;
        let p = self.p;
        let bag_empty = s.bag_total == 0;
        // 1. Deliveries (C-5.4), rare kinds first (lower kind index).
        let mut best_delivery: Option<(u8, Action)> = None;
        for &key in &s.loads[p] {
            let loc = (key >> 8) as u8;
            let cargo = key & 0xFF;
            if u16::from(loc) >= SUPPLY_LOC || cargo == 0 {
                continue;
            }
            let under = cargo >= 9;
            let kind = ((cargo - 1) & 7) as u8;
            let c = self.city(kind);
            let a = Action::good(Kind::ALL[usize::from(kind)], under, Square::unchecked(loc), Square::unchecked(c));
            // (a delivery needs an unladen camel of ours in the city, C-5.3:
            // the rules' check runs only then)
            if self.un & (1u64 << c) != 0
                && s.check(a).is_ok()
                && (!bag_empty || self.delivery_wins(kind))
                && best_delivery.is_none_or(|(k, _)| kind < k)
            {
                best_delivery = Some((kind, a));
            }
        }
        if let Some((_, a)) = best_delivery {
            return a;
        }

        // 2. Projects.
        let mut projects = ArrayVec::<Project, MAX_PROJECTS>::new();
        let mut push = |pr: Project| {
            let _ = projects.try_push(pr); // more than MAX_PROJECTS: the rest are dropped
        };
        let mut held = 0u32;
        let mut prev = u16::MAX;
        for &key in &s.loads[p] {
            let loc = (key >> 8) as u8;
            let cargo = key & 0xFF;
            if u16::from(loc) >= SUPPLY_LOC || cargo == 0 {
                continue;
            }
            held += 1;
            if key == prev {
                continue;
            }
            prev = key;
            let under = cargo >= 9;
            let kind = ((cargo - 1) & 7) as u8;
            let comp = flood(self.own, 1u64 << loc);
            let map = self.map(kind);
            if comp & FULL == 0 || map.meets(comp, 0) {
                // complete chains (cost 0) that may not deliver (empty bag,
                // not winning); an empty chain has no cost (none on a valid
                // board)
                continue;
            }
            let value = Kind::ALL[usize::from(kind)].points() as u32;
            push(Project::new(Goal::Carry { loc, kind, under }, value, 1, comp, kind, map, 1));
        }
        let total_camels = u32::from(s.config.camels);
        for i in 0..SPACES {
            let v = s.lying[i];
            if v == 0 {
                continue;
            }
            let kind = (v - 1) & 7;
            let q = on_board(s.config.board.spaces[i]);
            let qbit = 1u64 << q;
            // the actions besides the map's cost of the space
            let mut extra = 2;
            if self.own & qbit != 0 && self.un & qbit == 0 {
                extra += 2; // only laden camels of ours there: another one is needed
            }
            // Chains longer than the free camels need the good moved along
            // (one more action per missing camel).
            let need = u32::from(manhattan(q, self.city(kind))) + 1;
            let avail = total_camels.saturating_sub(held);
            extra += need.saturating_sub(avail) + held;
            let value = Kind::ALL[usize::from(kind)].points() as u32 + u32::from(s.space_markers[i]);
            let map = self.map(kind);
            push(Project::new(Goal::Pick { space: i as u8 }, value, extra, qbit, kind, map, 0));
        }
        if s.theft[p] > 0 {
            let players = usize::from(s.config.players);
            for q in 0..players {
                if q == p {
                    continue;
                }
                let mut prev = u16::MAX;
                for &key in &s.loads[q] {
                    let loc = (key >> 8) as u8;
                    let cargo = key & 0xFF;
                    if u16::from(loc) >= SUPPLY_LOC || !(1..=8).contains(&cargo) || key == prev {
                        continue;
                    }
                    prev = key;
                    let kind = (cargo - 1) as u8;
                    let lbit = 1u64 << loc;
                    // the actions besides the map's cost of the square
                    let mut extra = 2;
                    if self.un & lbit == 0 {
                        // j counted entering the (occupied) square: 2 actions
                        if self.own & lbit != 0 {
                            extra += 2;
                        }
                    }
                    let pts = Kind::ALL[usize::from(kind)].points() as u32;
                    // taking it from the opponent counts too, fully with one
                    // opponent, less with several
                    let deny = if players == 2 { pts / 2 } else { pts / 4 };
                    let goal = Goal::Steal { loc, kind, victim: q as u8 };
                    let map = self.map(kind);
                    push(Project::new(goal, pts + deny, extra, lbit, kind, map, 0));
                }
            }
        }
        // Best first, ties in enumeration order: a stable selection sort,
        // made only as far as the first affordable step (usually the first
        // project). Position `i` gets the first of the best of the rest; the
        // others keep their order. A cost still known only as a lower bound
        // is refined (its map grown) only as far as a cost that could still
        // beat the best exact project so far: a project left behind at its
        // bound is behind at its cost too.
        for i in 0..projects.len() {
            // the first of the best of the exact ones…
            let mut best: Option<usize> = None;
            for k in i..projects.len() {
                if projects[k].exact && best.is_none_or(|b| ahead(&projects, k, b)) {
                    best = Some(k);
                }
            }
            // …then every other one that could be ahead of it: its map is
            // grown as far as a cost that would still be ahead
            for k in i..projects.len() {
                if projects[k].exact {
                    continue;
                }
                // the largest map cost `to` at which it would be ahead
                let extra = projects[k].cost - u32::from(projects[k].j);
                let to = match best {
                    None => MAX_COST as u8 - 1,
                    Some(b) => match last_ahead(&projects, k, b) {
                        Some(cost) => (cost - extra).min(MAX_COST as u32 - 1) as u8,
                        None => continue, // behind at its bound already
                    },
                };
                let pr = &mut projects[k];
                match self.map(pr.kind).first_in(pr.set, pr.j, to) {
                    Some(j) => {
                        (pr.j, pr.cost, pr.exact) = (j, extra + u32::from(j), true);
                        best = Some(k); // ahead of the former best, by `to`
                    }
                    None => (pr.j, pr.cost) = (to + 1, extra + u32::from(to) + 1),
                }
            }
            // (with no exact project before, the first unresolved one was
            // resolved: every set of squares is met by the last layer, the
            // whole board)
            let best = best.unwrap_or(i);
            projects[i..=best].rotate_right(1);
            if let Some(a) = self.step(&projects[i]) {
                return a;
            }
        }
        // 3. Nothing affordable: move a carried good forward if that frees a
        // camel for next turn, else end the turn.
        for pr in &projects {
            if let Goal::Carry { loc, kind, under } = pr.goal
                && let Some(a) = self.forward(loc, kind, under)
            {
                return a;
            }
        }
        Action::END
    }

    /// Whether delivering a `kind` now (ending the game, C-7.1) wins (C-7.5).
    fn delivery_wins(&self, kind: u8) -> bool {
        let s = self.s;
        let mine = (s.points(self.p) + Kind::ALL[usize::from(kind)].points(), s.delivered_count(self.p) + 1);
        (0..usize::from(s.config.players)).filter(|&q| q != self.p).all(|q| (s.points(q), s.delivered_count(q)) < mine)
    }

    /// The next step of project `pr`, if it is affordable and legal now.
    fn step(&mut self, pr: &Project) -> Option<Action> {
        match pr.goal {
            Goal::Carry { loc, kind, under } => {
                // the camels its chain needs are kept by `spare`
                let comp = flood(self.own, 1u64 << loc);
                match self.extend(comp, kind, 1u64 << loc) {
                    Some(a) => Some(a),
                    None => self.forward(loc, kind, under),
                }
            }
            Goal::Pick { space } => {
                let q = on_board(self.s.config.board.spaces[usize::from(space) % SPACES]);
                let qbit = 1u64 << q;
                if self.un & qbit != 0 {
                    return self.legal(Action::pick(space + 1)?);
                }
                self.place(q, qbit)
            }
            Goal::Steal { loc, kind, victim } => {
                let lbit = 1u64 << loc;
                if self.un & lbit != 0 {
                    return self.legal(Action::steal(
                        Kind::ALL[usize::from(kind) % KINDS],
                        Square::unchecked(loc),
                        victim,
                    )?);
                }
                self.place(loc, lbit)
            }
        }
    }

    fn legal(&self, a: Action) -> Option<Action> {
        self.s.check(a).is_ok().then_some(a)
    }

    /// Places a camel on the square next to chain `comp` that lies on a
    /// cheapest path to the city of `kind`.
    fn extend(&mut self, comp: u64, kind: u8, keep: u64) -> Option<Action> {
        let map = self.map(kind);
        let j = map.cost_of(comp);
        if j == INF || j == 0 {
            return None;
        }
        let layer = map.layer(j);
        let c = self.city(kind);
        let cbit = 1u64 << c;
        let own0 = if self.un & cbit != 0 { self.own } else { self.own & !cbit };
        let cand = (neighbours(comp) | comp) & !own0 & layer;
        // an empty square first, then the one nearest the city, then the
        // lowest index; a camel taken from the board must make the chain
        // cheaper (no wandering back and forth)
        let mut tried = 0u64;
        loop {
            let mut best: Option<(u8, u8, u8)> = None;
            let mut m = cand & !tried;
            while m != 0 {
                let t = m.trailing_zeros() as u8;
                m &= m - 1;
                let key = (self.enter(t), manhattan(t, c), t);
                if key.0 <= self.left && best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
            let (_, _, t) = best?;
            let tbit = 1u64 << t;
            tried |= tbit;
            if self.s.supply[self.p] > 0 {
                return self.place(t, keep);
            }
            let y = self.spare(keep | tbit)?;
            let ybit = 1u64 << y;
            let stays = self.dup & ybit != 0 || self.s.laden[self.p] & ybit != 0;
            let own = if stays { self.own | tbit } else { (self.own & !ybit) | tbit };
            let un = if self.dup & ybit != 0 { self.un | tbit } else { (self.un & !ybit) | tbit };
            // is the chain cheaper than `j` after the move?
            let after = Growth::new(c, own, un, own | self.others).cost_within(flood(own, keep & comp), j - 1);
            if after < j {
                return self.legal(Action::move_camel(Some(Square::unchecked(y)), Square::unchecked(t)));
            }
        }
    }

    /// A camel move onto `t`, from the supply or from a camel no chain
    /// needs; `keep` are squares whose camels must stay.
    fn place(&mut self, t: u8, keep: u64) -> Option<Action> {
        if self.enter(t) > self.left {
            return None;
        }
        let to = Square::unchecked(t);
        if self.s.supply[self.p] > 0 {
            return self.legal(Action::move_camel(None, to));
        }
        let from = self.spare(keep | (1u64 << t))?;
        self.legal(Action::move_camel(Some(Square::unchecked(from)), to))
    }

    /// An unladen camel that can leave its square: a second camel on a
    /// square first, then the lowest one that no chain of a carried good
    /// needs (off a space with a lying good before one on it). Camels are
    /// tried in that order and the first one not needed is taken, so only
    /// the chains' need of the camels tried is worked out.
    fn spare(&mut self, keep: u64) -> Option<u8> {
        let s = self.s;
        let dup = self.dup & !keep;
        if dup != 0 {
            return Some(dup.trailing_zeros() as u8);
        }
        let mut lying = 0u64;
        for i in 0..SPACES {
            if s.lying[i] != 0 {
                lying |= 1u64 << on_board(s.config.board.spaces[i]);
            }
        }
        let free = self.un & !keep;
        for pool in [free & !lying, free & lying] {
            let mut m = pool;
            while m != 0 {
                let y = m.trailing_zeros() as u8;
                m &= m - 1;
                if !self.chain_needs(y) {
                    return Some(y);
                }
            }
        }
        None
    }

    /// Whether the unladen camel on `y` is needed by the chain of a carried
    /// good: the chain costs more without it.
    fn chain_needs(&mut self, y: u8) -> bool {
        let s = self.s;
        let ybit = 1u64 << y;
        let mut prev = u16::MAX;
        for &key in &s.loads[self.p] {
            let loc = (key >> 8) as u8;
            let cargo = key & 0xFF;
            if u16::from(loc) >= SUPPLY_LOC || cargo == 0 || key == prev {
                continue;
            }
            prev = key;
            let lbit = 1u64 << loc;
            let comp = flood(self.own, lbit);
            if comp & self.un & !lbit & ybit == 0 {
                continue; // not a camel of this chain (or the good's own)
            }
            let kind = ((cargo - 1) & 7) as u8;
            let c = self.city(kind);
            let j = self.map(kind).cost_of(comp);
            // other camels of ours on y (laden ones) keep it in the chain
            let alone = s.laden[self.p] & ybit == 0;
            let own = if alone { self.own & !ybit } else { self.own };
            let un = self.un & !ybit;
            let occ = own | self.others;
            // (only whether it is more than `j` matters)
            if Growth::new(c, own, un, occ).cost_within(flood(own, lbit), j) > j {
                return true;
            }
        }
        false
    }

    /// Moves the good on `loc` to the unladen camel of its chain nearest its
    /// city, when that is nearer than `loc` (C-5.3).
    fn forward(&self, loc: u8, kind: u8, under: bool) -> Option<Action> {
        if self.left == 0 {
            return None;
        }
        let c = self.city(kind);
        let comp = flood(self.own, 1u64 << loc);
        let mut m = comp & self.un;
        let mut best: Option<(u8, u8)> = None;
        while m != 0 {
            let t = m.trailing_zeros() as u8;
            m &= m - 1;
            let key = (manhattan(t, c), t);
            if key.0 < manhattan(loc, c) && best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let (_, t) = best?;
        let a = Action::good(Kind::ALL[usize::from(kind) % KINDS], under, Square::unchecked(loc), Square::unchecked(t));
        self.legal(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The cost map as the planner first computed it, every layer at once
    /// (the reference for [`Growth`] and [`CostMap`]): the layers, up to the
    /// first that is the whole board.
    fn reference_layers(c: u8, own: u64, un: u64, occ: u64) -> Vec<u64> {
        let cbit = 1u64 << c;
        let own0 = if un & cbit != 0 { own } else { own & !cbit };
        let empty = FULL & !occ;
        let occ2 = occ & !own0;
        let seed_at = if own0 & cbit != 0 {
            0
        } else if empty & cbit != 0 {
            1
        } else {
            2
        };
        let mut layers = Vec::new();
        let mut prev1 = 0u64; // layer j-1
        let mut prev2 = 0u64; // layer j-2
        for j in 0..MAX_COST {
            let mut l = prev1 | (neighbours(prev1) & empty) | (neighbours(prev2) & occ2);
            if j >= seed_at {
                l |= cbit;
            }
            l = flood(l | own0, l) | l;
            layers.push(l);
            if l == FULL {
                break;
            }
            prev2 = prev1;
            prev1 = l;
        }
        layers
    }

    /// The reference cost of `set`: the first layer meeting it.
    fn reference_cost(layers: &[u64], set: u64) -> u8 {
        layers.iter().position(|&l| l & set != 0).map_or(INF, |j| j as u8)
    }

    /// A position's bitboards and a city: the mover's camels `own` (0 to 12
    /// squares, unladen ones `un`), everyone's `occ` (up to 30 more squares),
    /// the city square `c` (on one of the mover's camels a third of the time).
    fn boards() -> impl Strategy<Value = (u8, u64, u64, u64)> {
        let squares = |n| proptest::collection::vec(0..SQUARES as u8, 0..n);
        (squares(13), squares(31), any::<u64>(), 0..SQUARES as u8, 0..3u8).prop_map(|(mine, theirs, x, c, pick)| {
            let bits = |v: &[u8]| v.iter().fold(0u64, |acc, &q| acc | 1u64 << q);
            let own = bits(&mine);
            let c = if pick == 0 && !mine.is_empty() { mine[usize::from(c) % mine.len()] } else { c };
            (c, own, own & x, own | bits(&theirs))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn growth_makes_the_reference_layers((c, own, un, occ) in boards()) {
            let reference = reference_layers(c, own, un, occ);
            prop_assert_eq!(*reference.last().unwrap(), FULL, "the last layer is the whole board");
            let mut g = Growth::new(c, own, un, occ);
            for (j, &l) in reference.iter().enumerate() {
                prop_assert_eq!(g.next_layer(), l, "layer {}", j);
            }
            prop_assert_eq!(g.next_layer(), FULL, "past the last layer");
        }

        #[test]
        fn last_ahead_is_the_largest_cost_still_ahead(
            va in 1..40u32, ca in 1..60u32, vb in 1..40u32, cb in 1..60u32, a_first in any::<bool>(),
        ) {
            let project = |value, cost| Project {
                goal: Goal::Pick { space: 0 },
                value,
                cost,
                set: 1,
                kind: 0,
                j: 0,
                exact: false,
            };
            let mut projects = [project(va, ca), project(vb, cb)];
            let (a, b) = if a_first { (0, 1) } else { projects.swap(0, 1); (1, 0) };
            let ahead_at = |cost: u32| {
                let mut p = projects;
                p[a].cost = cost;
                ahead(&p, a, b)
            };
            let expected = (ca..=4000).take_while(|&c| ahead_at(c)).last();
            prop_assert_eq!(last_ahead(&projects, a, b), expected);
        }

        #[test]
        fn queries_answer_like_the_reference(
            (c, own, un, occ) in boards(),
            sets in proptest::collection::vec((any::<u64>(), 0..64u32, 0..30u8), 1..8),
        ) {
            let reference = reference_layers(c, own, un, occ);
            let mut map = CostMap::new(c, own, un, occ);
            for (x, sq, limit) in sets {
                // a single square, a random set or nothing
                let set = match x % 3 {
                    0 => (1u64 << sq) & FULL,
                    1 => x & x.rotate_left(11) & x.rotate_left(29) & FULL,
                    _ => 0,
                };
                let cost = reference_cost(&reference, set);
                prop_assert_eq!(map.cost_of(set), cost);
                if cost != INF {
                    prop_assert_eq!(map.layer(cost), reference[usize::from(cost)]);
                }
                let within = if cost <= limit { cost } else { INF };
                prop_assert_eq!(Growth::new(c, own, un, occ).cost_within(set, limit), within);
                // the lazy questions on a fresh map, then on this one
                for m in [&mut CostMap::new(c, own, un, occ), &mut map] {
                    let (j, exact) = m.known(set, 0);
                    let told = if exact { j == cost } else { cost == INF || j <= cost };
                    prop_assert!(told, "known: {} {}, cost {}", j, exact, cost);
                    let to = limit.min(MAX_COST as u8 - 1);
                    if cost != INF {
                        let from = j.min(cost);
                        let first = m.first_in(set, from, to);
                        prop_assert_eq!(first, (cost <= to).then_some(cost));
                    }
                    let probe = limit % MAX_COST as u8;
                    let meets = reference.get(usize::from(probe)).map_or(set != 0, |&l| l & set != 0);
                    prop_assert_eq!(m.meets(set, probe), meets);
                }
            }
        }
    }
}
