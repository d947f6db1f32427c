//! Where the committed network's share against four heuristics comes from:
//! one seat against four `heuristic` (5 players), each row the heuristic or
//! the network with one kind of its decisions handed to the other or fixed
//! — the figures of `docs/learning.md`'s table "What was tried" (where the
//! network's share comes from, and the best honest player measured), rows
//! that lay or drive by rollouts among them.
//!
//! ```text
//! cargo run --release -p korovan-core --example share_sources -- [games] [rollouts] [rows] [seed]
//! cargo run --release -p korovan-core --example share_sources -- 20000 0
//! cargo run --release -p korovan-core --example share_sources -- 4000 200 'rollouts lay'
//! ```
//!
//! Every row plays `games` games from `seed` (default 1,000,000) on two
//! threads, the seats rotating, and prints the seat's share of the wins
//! (draws split, K-7.3) with its 95% Wilson interval. With `rollouts` above
//! 0 four more rows decide by flat Monte-Carlo (every legal action valued by
//! that many rollouts of the heuristic at every seat, over determinizations
//! of the seat's view, K-8.6): two drive that way, one lays that way (each
//! of the six lays of K-4.3), one does both. They are slow, so give them
//! fewer games (`-- 4000 200`). `rows` keeps only the rows whose label
//! contains it (`all` for every row).
//!
//! The rows name the seat's decisions by phase: the *lay* (K-4.3: which
//! card is kept, and where the ambushes go), the *peek* (K-4.2) and the
//! *drive* (place, switch, reveal, helpers and defence, K-5, K-6). A lay
//! "at {0,1}" keeps the count the agent chose and puts the ambushes at
//! positions 0 and 1 (a single ambush at 0).
//!
//! It is an example of wrapping the engine's agents in an agent of one's
//! own that looks at every decision and replaces some of them.

use std::sync::atomic::{AtomicU64, Ordering};

use boardgame_kit::{Agent, Arena, Bots, Entrant, Game, GameRng, Turn};
use korovan_core::{Action, ActionList, AmbushSet, Card, Korovan, KorovanConfig, KorovanHeuristic, Phase};

/// How often the network laid each set of [`AmbushSet::ALL`] in the
/// current row's games.
static LAYS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

/// Who takes a kind of decision.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    /// The committed network, greedy.
    Network,
    /// The heuristic.
    Heuristic,
}

/// How the lay is changed after the chooser chose.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LayRule {
    /// As chosen.
    AsChosen,
    /// The chosen count, the ambushes at positions 0 and 1 (a single at 0).
    AtZero,
    /// The chosen count, the ambushes at positions 1 and 2 (a single at 2).
    AtTwo,
    /// Always two ambushes, at 0 and 1 (an `Empty` kept).
    AlwaysTwo,
    /// Always one ambush, at 0 (the `Ambush` kept).
    AlwaysOne,
    /// By flat Monte-Carlo over determinizations, as [`Drive::Rollouts`]
    /// with `true` drives: every one of the six lays valued by rollouts.
    ByRollouts,
}

/// How the seat drives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Drive {
    /// By an agent.
    By(Who),
    /// Flat Monte-Carlo over determinizations; with `true` only those in
    /// which every row laid by another seat holds two ambushes outside the
    /// last round (what the heuristic lays there).
    Rollouts(bool),
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
struct Row {
    label: &'static str,
    peek_lay: Who,
    lay: LayRule,
    drive: Drive,
}

/// The seat measured: the network and the heuristic, each decision taken by
/// the one the row names.
struct Mixed {
    row: Row,
    net: Box<dyn Agent<Korovan>>,
    heuristic: KorovanHeuristic,
    rollouts: usize,
}

impl Mixed {
    fn by(&mut self, who: Who, state: &Korovan, seat: usize, rng: &mut GameRng) -> Action {
        match who {
            Who::Network => self.net.act(state, seat, rng),
            Who::Heuristic => self.heuristic.act(state, seat, rng),
        }
    }
}

/// `set` with its ambushes moved as `rule` says.
fn relay(rule: LayRule, set: AmbushSet) -> AmbushSet {
    let [one_at_0, _, one_at_2, two_at_01, _, two_at_12] = AmbushSet::ALL;
    match (rule, set.count()) {
        (LayRule::AsChosen | LayRule::ByRollouts, _) => set,
        (LayRule::AtZero, 1) | (LayRule::AlwaysOne, _) => one_at_0,
        (LayRule::AtZero, _) | (LayRule::AlwaysTwo, _) => two_at_01,
        (LayRule::AtTwo, 1) => one_at_2,
        (LayRule::AtTwo, _) => two_at_12,
    }
}

impl Agent<Korovan> for Mixed {
    fn name(&self) -> String {
        self.row.label.to_string()
    }

    fn act(&mut self, state: &Korovan, seat: usize, rng: &mut GameRng) -> Action {
        match state.phase() {
            Phase::Peek => self.by(self.row.peek_lay, state, seat, rng),
            Phase::Lay if self.row.lay == LayRule::ByRollouts => flat_drive(state, seat, rng, self.rollouts, true),
            Phase::Lay => {
                let chosen = self.by(self.row.peek_lay, state, seat, rng);
                let Action::Lay(set) = chosen else { return chosen };
                if self.row.peek_lay == Who::Network
                    && let Some(i) = AmbushSet::ALL.iter().position(|s| *s == set)
                {
                    LAYS[i].fetch_add(1, Ordering::Relaxed);
                }
                Action::Lay(relay(self.row.lay, set))
            }
            _ => match self.row.drive {
                Drive::By(who) => self.by(who, state, seat, rng),
                Drive::Rollouts(aware) => flat_drive(state, seat, rng, self.rollouts, aware),
            },
        }
    }
}

/// The journey's decision of `me` by flat Monte-Carlo: every legal action
/// valued by its mean share of the win over `rollouts` determinizations of
/// `me`'s view, each played out by the heuristic at every seat (the same
/// determinizations and rollout seeds for every action).
fn flat_drive(state: &Korovan, me: usize, rng: &mut GameRng, rollouts: usize, aware: bool) -> Action {
    let mut legal = ActionList::new();
    state.legal_actions(&mut legal);
    let Some(&first) = legal.first() else { return Action::Pay };
    if legal.len() == 1 {
        return first;
    }
    let last_round = state.round() + 1 >= state.config().rounds();
    let base = rng.next_u64();
    let mut draw = GameRng::new(base);
    let mut worlds = Vec::with_capacity(rollouts);
    let mut tries = 0;
    while worlds.len() < rollouts && tries < 1000 * rollouts {
        tries += 1;
        let Ok(world) = state.determinize(me, &mut draw) else { return first };
        let two_each = (1..=world.rows_laid() as u8).all(|row| {
            world.row_owner(row) == Some(me)
                || (0..3).filter(|&p| world.card(row, p) == Some(Card::Ambush)).count() == 2
        });
        if !aware || last_round || two_each {
            worlds.push(world);
        }
    }
    let mut returns = [0.0f64; korovan_core::MAX_PLAYERS];
    let mut best = (f64::NEG_INFINITY, first);
    for &action in legal.iter() {
        let mut total = 0.0;
        for (j, world) in worlds.iter().enumerate() {
            let mut game = *world;
            game.apply_unchecked(action);
            let mut r = GameRng::new(base ^ (j as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut heuristic = KorovanHeuristic::default();
            loop {
                let next = match game.turn() {
                    Turn::Chance => game.sample_chance_outcome(&mut r),
                    Turn::Player(s) => Some(heuristic.act(&game, s, &mut r)),
                    _ => None,
                };
                let Some(next) = next else { break };
                game.apply_unchecked(next);
            }
            game.returns(&mut returns[..game.num_players()]);
            total += returns[me];
        }
        if total > best.0 {
            best = (total, action);
        }
    }
    best.1
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let rollouts: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let only: Option<String> = args.next().filter(|o| o != "all");
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    use {Drive::*, LayRule::*, Who::*};
    let mut rows = vec![
        Row { label: "heuristic", peek_lay: Heuristic, lay: AsChosen, drive: By(Heuristic) },
        Row { label: "heuristic, lays at {0,1}", peek_lay: Heuristic, lay: AtZero, drive: By(Heuristic) },
        Row { label: "heuristic, lays at {1,2}", peek_lay: Heuristic, lay: AtTwo, drive: By(Heuristic) },
        Row { label: "network", peek_lay: Network, lay: AsChosen, drive: By(Network) },
        Row { label: "network, the heuristic drives", peek_lay: Network, lay: AsChosen, drive: By(Heuristic) },
        Row {
            label: "network, the heuristic peeks and lays at {0,1}",
            peek_lay: Heuristic,
            lay: AtZero,
            drive: By(Network),
        },
        Row { label: "network, always two ambushes at {0,1}", peek_lay: Network, lay: AlwaysTwo, drive: By(Network) },
        Row { label: "network, always one ambush at 0", peek_lay: Network, lay: AlwaysOne, drive: By(Network) },
    ];
    if rollouts > 0 {
        rows.push(Row { label: "network, rollouts drive", peek_lay: Network, lay: AsChosen, drive: Rollouts(false) });
        rows.push(Row {
            label: "network, rollouts drive (two ambushes a row)",
            peek_lay: Network,
            lay: AsChosen,
            drive: Rollouts(true),
        });
        rows.push(Row {
            label: "network, rollouts lay",
            peek_lay: Network,
            lay: LayRule::ByRollouts,
            drive: By(Network),
        });
        rows.push(Row {
            label: "network, rollouts lay and drive",
            peek_lay: Network,
            lay: LayRule::ByRollouts,
            drive: Rollouts(true),
        });
    }
    if let Err(e) = korovan_core::learned_network() {
        eprintln!("the committed network cannot be read: {e}");
        std::process::exit(1);
    }
    let arena = Arena::<Korovan>::new(KorovanConfig::with_players(5));
    println!("{games} games from seed {seed}, one seat against four heuristic (5 players)");
    for row in rows.into_iter().filter(|r| only.as_deref().is_none_or(|o| r.label.contains(o))) {
        for c in &LAYS {
            c.store(0, Ordering::Relaxed);
        }
        let mut entrants = vec![Entrant::new(row.label, move || -> Box<dyn Agent<Korovan>> {
            let net = Korovan::learned_agent(0.0).and_then(Result::ok).expect("the network was read above");
            Box::new(Mixed { row, net, heuristic: KorovanHeuristic::default(), rollouts })
        })];
        for _ in 0..4 {
            entrants.push(Entrant::new("heuristic", || Box::new(KorovanHeuristic::default())));
        }
        let report = match arena.run(&entrants, seed..seed + games, 2) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: {e}", row.label);
                std::process::exit(1);
            }
        };
        let me = &report.entrants[0];
        let (lo, hi) = me.win_share_interval();
        let lays: Vec<u64> = LAYS.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let total: u64 = lays.iter().sum();
        let lays = if total == 0 {
            String::new()
        } else {
            let two_at_01 = lays[3] as f64 / total as f64;
            let single = (lays[0] + lays[1] + lays[2]) as f64 / total as f64;
            format!(
                "  (the network's lays: {:.1}% at {{0,1}}, {:.1}% a single ambush)",
                100.0 * two_at_01,
                100.0 * single
            )
        };
        println!("{:<48} {:5.2}% [{:.1}, {:.1}]{lays}", row.label, 100.0 * me.win_share(), 100.0 * lo, 100.0 * hi);
    }
}
