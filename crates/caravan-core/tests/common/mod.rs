//! Helpers shared by the integration tests: hand-made positions and the
//! biased driver of C-9.3.
#![allow(dead_code)]

use boardgame_kit::{Agent, Game, GameRng, Turn, decision_positions, sample_chance};
use caravan_core::{Act, Action, Caravan, CaravanConfig, CaravanHeuristic, CaravanSetup, Cargo, Kind, Square};

/// A square by name.
pub fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// An action by notation.
pub fn act(s: &str) -> Action {
    s.parse().unwrap()
}

/// The legal actions of `s`.
pub fn legal(s: &Caravan) -> Vec<Action> {
    let mut list = <Caravan as Game>::ActionList::default();
    s.legal_actions(&mut list);
    list.to_vec()
}

/// A config with `players` players and the defaults otherwise.
pub fn cfg(players: u8) -> CaravanConfig {
    CaravanConfig::with_players(players)
}

/// The spaces filled with common goods (space `i` gets `C1..C4` in turn),
/// no camels on the board, turn `t` with `left` actions left.
pub fn base(config: CaravanConfig, t: u32, left: u8) -> CaravanSetup {
    CaravanSetup::initial(config)
        .fill_spaces(&[Kind::C1, Kind::C2, Kind::C3, Kind::C4, Kind::C1, Kind::C2, Kind::C3, Kind::C4])
        .turn(t, left)
}

/// Builds the state, panicking with the setup error.
pub fn game(setup: &CaravanSetup) -> Caravan {
    Caravan::from_setup(setup).unwrap_or_else(|e| panic!("bad test position: {e}"))
}

/// Plays `a`, panicking with the reason if it is illegal.
pub fn play(s: &mut Caravan, a: &str) {
    s.apply(act(a)).unwrap_or_else(|e| panic!("{e}\n{s}"));
}

fn manhattan(a: Square, b: Square) -> i32 {
    (i32::from(a.row()) - i32::from(b.row())).abs() + (i32::from(a.col()) - i32::from(b.col())).abs()
}

fn flood(set: u64, from: u64) -> u64 {
    const FULL: u64 = (1 << 49) - 1;
    let col_a: u64 = (0..7).map(|r| 1u64 << (7 * r)).sum();
    let col_g = col_a << 6;
    let mut comp = from & set;
    loop {
        let nb = (comp << 7) | (comp >> 7) | ((comp << 1) & !col_a) | ((comp >> 1) & !col_g);
        let next = (comp | (nb & FULL)) & set;
        if next == comp {
            return comp;
        }
        comp = next;
    }
}

fn min_distance(bb: u64, to: Square) -> i32 {
    let mut b = bb;
    let mut best = 99;
    while b != 0 {
        let i = b.trailing_zeros() as u8;
        b &= b - 1;
        best = best.min(manhattan(Square::from_index(i).unwrap(), to));
    }
    best
}

/// The biased driver's evaluation of `s` for `p`: deliveries first, then
/// goods carried close to their city along chains that reach towards it.
fn value(s: &Caravan, p: usize) -> i32 {
    let board = s.config().board;
    let mut v = 1000 * s.delivered_count(p) as i32;
    let mut occ = 0u64;
    let mut unladen = 0u64;
    for (q, c) in s.camels_on_board(p) {
        occ |= 1 << q.index();
        if c == Cargo::Empty {
            unladen |= 1 << q.index();
        }
    }
    let mut laden = 0;
    for (square, cargo) in s.camels_on_board(p) {
        if let Some(k) = cargo.kind() {
            laden += 1;
            let city = board.city(k);
            let reach = min_distance(flood(occ, 1 << square.index()), city);
            v -= 3 * reach + manhattan(square, city);
        }
    }
    v += 40 * laden.min(2);
    if laden < 2 {
        // bring an unladen camel to a good lying on a numbered space
        let mut goods = 0u64;
        for n in 1..=8u8 {
            if let (Some(_), Some(g)) = (s.lying(n), board.space(n)) {
                goods |= 1 << g.index();
            }
        }
        v -= if goods & unladen != 0 { 0 } else { 1 };
    }
    v
}

/// The biased driver of C-9.3: prefer deliveries, then moves of goods
/// (towards their city), then pick-ups; otherwise the camel move that helps
/// most (random among equals).
pub fn biased_action(s: &Caravan, rng: &mut GameRng) -> Action {
    let p = match s.turn() {
        Turn::Player(p) => p,
        _ => panic!("not a decision"),
    };
    let actions = legal(s);
    let board = s.config().board;
    let is_delivery = |a: &Action| matches!(a.act(), Act::Good { kind, to, .. } if board.city(kind) == to);
    if let Some(a) = actions.iter().find(|a| is_delivery(a)) {
        return *a;
    }
    let now = value(s, p);
    let mut best = Vec::new();
    let mut best_v = i32::MIN;
    for &a in &actions {
        let mut c = *s;
        c.apply_unchecked(a);
        let bonus = match a.act() {
            Act::Good { .. } => 2,
            Act::Pick { .. } => 1,
            _ => 0,
        };
        let v = value(&c, p) * 4 + bonus;
        if v > best_v {
            best_v = v;
            best.clear();
        }
        if v == best_v {
            best.push(a);
        }
    }
    if best_v <= now * 4 {
        // nothing helps: a random action, ending the turn now and then
        return actions[rng.index(actions.len())];
    }
    best[rng.index(best.len())]
}

/// What a biased game went through.
pub struct BiasedGame {
    /// The final state.
    pub state: Caravan,
    /// Refills seen (C-6.1: a pick that leaves draws pending).
    pub refills: u32,
    /// Every state passed through (when asked for).
    pub states: Vec<Caravan>,
}

/// Plays a game of `config` with the biased driver for every seat.
pub fn biased_game(config: CaravanConfig, seed: u64, keep_states: bool) -> BiasedGame {
    let mut s = Caravan::new_game(&config).unwrap();
    let mut rng = GameRng::new(seed);
    let mut buf = Default::default();
    let mut refills = 0;
    let mut states = Vec::new();
    while !s.is_terminal() {
        if keep_states {
            states.push(s);
        }
        let a = match s.turn() {
            Turn::Chance => sample_chance(&s, &mut rng, &mut buf).unwrap(),
            _ => biased_action(&s, &mut rng),
        };
        let was_chance = s.turn() == Turn::Chance;
        s.apply(a).unwrap();
        if !was_chance && s.turn() == Turn::Chance {
            refills += 1;
        }
    }
    if keep_states {
        states.push(s);
    }
    BiasedGame { state: s, refills, states }
}

/// Every `step`-th decision position of a game of `players` heuristic
/// players (default config otherwise; the heuristic and chance drawn from
/// one `GameRng::new(seed)`), at most `count` of them, with the seat to move.
pub fn heuristic_positions(players: u8, seed: u64, step: usize, count: usize) -> Vec<(Caravan, usize)> {
    let config = CaravanConfig { players, ..Default::default() };
    let mut bots: Vec<CaravanHeuristic> = (0..players).map(|_| CaravanHeuristic::new()).collect();
    let mut agents: Vec<&mut dyn Agent<Caravan>> = bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
    decision_positions(Caravan::new_game(&config).unwrap(), &mut agents, &mut GameRng::new(seed), step, count).unwrap()
}
