//! The heuristic agent ([`KorovanHeuristic`]): legality, reproducibility, no
//! hidden information, targeted decisions and a strength check; plus the
//! release-mode arena harness behind `docs/bots.md` (ignored by default).

mod common;

use boardgame_kit::{Agent, Arena, Entrant, Evaluation, Game, GameRng, IsMctsAgent, Outcome, RandomAgent, play_game};
use korovan_core::{
    Action, AmbushSet, HelperCounts, Korovan, KorovanConfig, KorovanHeuristic, KorovanSetup, Phase, RowSetup,
};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{cfg, journey, play};

/// Plays one game of `n` players: the heuristic at `seat`, random agents
/// elsewhere (every action validated by `play_game`).
fn heuristic_game(n: u8, seat: usize, seed: u64) -> boardgame_kit::PlayedGame<Korovan> {
    let mut bot = KorovanHeuristic::default();
    let mut randoms: Vec<RandomAgent> = (0..n).map(|_| RandomAgent).collect();
    let mut agents: Vec<&mut dyn Agent<Korovan>> = Vec::new();
    for (s, r) in randoms.iter_mut().enumerate() {
        if s != seat {
            agents.push(r);
        }
    }
    agents.insert(seat, &mut bot);
    play_game::<Korovan>(&KorovanConfig::with_players(n), &mut agents, seed).unwrap()
}

#[test]
fn only_legal_actions_for_every_player_count() {
    for n in 3..=9u8 {
        for seed in 0..40u64 {
            let seat = (seed % u64::from(n)) as usize;
            heuristic_game(n, seat, seed); // play_game validates every action
        }
        // Every seat a heuristic, more laps.
        for seed in 0..10u64 {
            let config = KorovanConfig { laps: 2, ..KorovanConfig::with_players(n) };
            let mut bots: Vec<KorovanHeuristic> = (0..n).map(|_| KorovanHeuristic::default()).collect();
            let mut agents: Vec<&mut dyn Agent<Korovan>> =
                bots.iter_mut().map(|b| b as &mut dyn Agent<Korovan>).collect();
            let game = play_game::<Korovan>(&config, &mut agents, seed).unwrap();
            assert!(game.state.is_terminal());
        }
    }
}

#[test]
fn same_seed_same_game() {
    for n in [3u8, 5, 9] {
        for seed in 0..5u64 {
            let a = heuristic_game(n, 1, seed);
            let b = heuristic_game(n, 1, seed);
            assert_eq!(a.record.actions, b.record.actions);
            assert_eq!(a.state, b.state);
        }
    }
}

/// The chosen action (and the rng afterwards) is the same when the state is
/// replaced by a determinization from the acting seat's view: the agent
/// reads nothing its seat may not see.
#[test]
fn decisions_never_read_hidden_information() {
    let mut checked = 0;
    for n in [3u8, 5, 7] {
        for seed in 0..12u64 {
            let mut state = Korovan::new_game(&KorovanConfig::with_players(n)).unwrap();
            let mut rng = GameRng::new(seed);
            let mut chances = Default::default();
            while !state.is_terminal() {
                let action = match state.turn() {
                    boardgame_kit::Turn::Chance => {
                        boardgame_kit::sample_chance(&state, &mut rng, &mut chances).unwrap()
                    }
                    boardgame_kit::Turn::Player(seat) => {
                        let mut bot = KorovanHeuristic::default();
                        let mut r1 = GameRng::new(seed * 1000 + checked);
                        let mut r2 = r1.clone();
                        let real = bot.act(&state, seat, &mut r1);
                        for k in 0..3 {
                            let mut det_rng = GameRng::new(seed * 7 + k);
                            let other = state.determinize(seat, &mut det_rng).unwrap();
                            let mut r3 = r2.clone();
                            assert_eq!(bot.act(&other, seat, &mut r3), real, "seat {seat}\n{state}\n{other}");
                            assert_eq!(r3.next_u64(), r1.clone().next_u64());
                        }
                        r2.next_u64();
                        checked += 1;
                        real
                    }
                    boardgame_kit::Turn::Terminal => unreachable!(),
                };
                state.apply(action).unwrap();
            }
        }
    }
    assert!(checked > 500);
}

/// The kit's search agents on Korovan, with small budgets: legal actions
/// for every player count, same seed ⇒ same game (the heuristic as one
/// ISMCTS variant's rollout policy).
#[test]
fn search_agents_play_legal_reproducible_games() {
    for n in 3..=9u8 {
        let run = |seed: u64| {
            let mut ismcts = IsMctsAgent::<Korovan>::with_iterations(12).chance_branching(false);
            let mut guided =
                IsMctsAgent::<Korovan>::with_iterations(3).rollout_agent(Box::new(KorovanHeuristic::new()));
            let mut flat = boardgame_kit::FlatMcAgent::<Korovan>::with_iterations(12);
            let mut bot = KorovanHeuristic::new();
            let mut randoms: Vec<RandomAgent> = (0..n).map(|_| RandomAgent).collect();
            let mut agents: Vec<&mut dyn Agent<Korovan>> = vec![&mut ismcts, &mut guided, &mut flat, &mut bot];
            agents.truncate(usize::from(n));
            for r in randoms.iter_mut().skip(agents.len()) {
                agents.push(r);
            }
            play_game::<Korovan>(&KorovanConfig::with_players(n), &mut agents, seed).unwrap()
        };
        let seed = u64::from(n) * 31;
        let (a, b) = (run(seed), run(seed));
        assert_eq!(a.record.actions, b.record.actions);
        assert_eq!(a.state, b.state);
    }
}

fn hand(scout: u8, spy: u8, flare: u8, second: u8, guard: u8, haggle: u8) -> HelperCounts {
    HelperCounts::from_array([scout, spy, flare, second, guard, haggle])
}

fn choose(state: &Korovan) -> Action {
    let seat = match state.turn() {
        boardgame_kit::Turn::Player(s) => s,
        t => panic!("no decision: {t:?}"),
    };
    KorovanHeuristic::default().act(state, seat, &mut GameRng::new(3))
}

/// K-5.5/K-6: a 3-cow fine is guarded.
#[test]
fn guards_a_three_cow_fine() {
    // Row 1 holds one ambush at 0 (fine 3); the driver holds a Guard and a Haggle.
    let mut g = journey(5, &[0b001, 0b011, 0b011, 0b011], hand(0, 0, 0, 0, 1, 1));
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(g.phase(), Phase::Defend);
    assert_eq!(g.pending_fine(), 3);
    assert_eq!(choose(&g), Action::Guard);
}

/// A 2-cow fine early in the journey, with cows to spare: Haggle, keeping the
/// Guard for a later 3-cow fine; on the last row nothing is kept for later.
#[test]
fn haggles_a_two_cow_fine_and_keeps_the_guard() {
    let mut g = journey(5, &[0b011, 0b011, 0b011, 0b011], hand(0, 0, 0, 0, 1, 1));
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(g.pending_fine(), 2);
    assert_eq!(choose(&g), Action::Haggle);
    // A driver with 1 cow: paying or haggling a 2-cow fine breaks it
    // (K-5.6); the Guard saves the journey and the toll of K-5.7.
    // (seat 0 drives again in the second lap: in round 0 every seat would
    // still hold its 6 starting cows, K-1.2)
    let mut setup = common::journey_setup(5, 5, &[0b011, 0b011, 0b011, 0b011], hand(0, 0, 0, 0, 1, 1));
    setup.config.laps = 2;
    setup.cows = vec![1, 8, 7, 7, 7];
    let mut g = Korovan::from_setup(&setup).unwrap();
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(g.pending_fine(), 2);
    assert_eq!(choose(&g), Action::Guard);
}

/// The driver scouts before placing when it has nothing else to go on.
#[test]
fn scouts_before_placing() {
    let g = journey(5, &[0b011, 0b011, 0b011, 0b011], hand(1, 0, 0, 0, 0, 0));
    assert!(matches!(choose(&g), Action::Scout { row: 1, .. }), "{}", choose(&g));
}

/// Placed on a card it then scouts as an ambush, with a safer card left:
/// it switches (K-5.3); with no switch left it plays a SecondThought first.
#[test]
fn switches_off_a_scouted_ambush() {
    // Row 1: ambushes at 0 and 1, position 2 empty.
    let mut g = journey(5, &[0b011, 0b011, 0b011, 0b011], hand(2, 0, 0, 1, 0, 0));
    play(&mut g, "place 0");
    play(&mut g, "scout 1.0");
    // It knows the token is on an ambush; the others are uncertain but cheaper.
    let a = choose(&g);
    assert!(matches!(a, Action::Switch(1 | 2) | Action::Scout { row: 1, pos: 1 | 2 }), "{a}");
    play(&mut g, "switch 1");
    play(&mut g, "scout 1.1"); // ambush again; position 2 must be empty
    assert_eq!(g.switches_left(), 0);
    assert_eq!(choose(&g), Action::SecondThought);
    play(&mut g, "second_thought");
    assert_eq!(choose(&g), Action::Switch(2));
}

/// A flared (face-up) empty card is taken at once; a face-up ambush avoided.
#[test]
fn places_on_a_known_empty_card() {
    let mut g = journey(5, &[0b101, 0b011, 0b011, 0b011], hand(0, 0, 1, 0, 0, 0));
    play(&mut g, "flare 1.1");
    assert_eq!(choose(&g), Action::Place(1));
}

/// A competitor's lay in a chosen position: `cows`, round `round` of a
/// 5-player game, the rows before its own laid with `masks`.
fn lay_position(round: u8, cows: [u8; 5], masks: &[u8]) -> Korovan {
    let config = cfg(5, 4);
    let rows: Vec<RowSetup> = masks
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let r = RowSetup::new(AmbushSet::from_mask(m).unwrap());
            if i == 0 { r } else { r.peeked(1, 0) }
        })
        .collect();
    let setup = KorovanSetup {
        config,
        round,
        cows: cows.to_vec(),
        phase: Phase::Lay,
        helper_hand: hand(1, 1, 1, 1, 0, 0),
        played: HelperCounts::NONE,
        helpers_played: Vec::new(),
        rows,
        current_row: 0,
        token: None,
        switches_left: 1,
        pending_peek: (!masks.is_empty()).then_some((1, 0)),
    };
    Korovan::from_setup(&setup).unwrap_or_else(|e| panic!("{e}"))
}

fn kept_ambush(g: &Korovan) -> bool {
    match choose(g) {
        Action::Lay(s) => s.count() == 1,
        a => panic!("not a lay: {a}"),
    }
}

/// K-4.3: before the last round the competitor keeps an `Empty` (two
/// ambushes at fine 2: the larger expected fine); in the last round it keeps
/// the `Ambush` when only a 3-cow fine can lift it to the top.
#[test]
fn keeps_the_card_that_fits_the_position() {
    // Round 1 of 5 (driver seat 0), seat 1 lays row 1: keep the Empty.
    let g = lay_position(0, [6; 5], &[]);
    assert_eq!(g.turn(), boardgame_kit::Turn::Player(1));
    assert!(!kept_ambush(&g));
    // Last round (round 5, driver seat 1): seat 2 lays row 1. The driver
    // leads with 9 cows, seat 2 has 6: +2 leaves it behind (8 vs 7 … the
    // driver keeps 7 and the toll), +3 brings it level or ahead.
    let g = lay_position(4, [5, 9, 6, 5, 5], &[]);
    assert_eq!(g.turn(), boardgame_kit::Turn::Player(2));
    assert!(kept_ambush(&g), "{g}");
    // Same round, seat 2 already leads comfortably: the Empty.
    let g = lay_position(4, [5, 6, 9, 5, 5], &[]);
    assert!(!kept_ambush(&g));
}

/// The heuristic beats random opponents clearly (a random agent's share is
/// about 1/5).
#[test]
fn beats_random_agents() {
    let games = 300u64;
    let mut share = 0.0;
    for seed in 0..games {
        let seat = (seed % 5) as usize;
        let g = heuristic_game(5, seat, 10_000 + seed);
        share += win_share(g.state.outcome(), seat);
    }
    let rate = share / games as f64;
    assert!(rate >= 0.30, "win share {rate:.3} over {games} games");
}

/// A seat's share of the win: 1 alone, `1/k` in a draw among `k` seats.
fn win_share(outcome: Option<Outcome>, seat: usize) -> f64 {
    match outcome {
        Some(Outcome::Winner(w)) if w == seat => 1.0,
        Some(Outcome::Draw(s)) if s.contains(seat) => 1.0 / s.len() as f64,
        _ => 0.0,
    }
}

// ----- arena (release, ignored) -------------------------------------------

/// One agent against four random ones, 5 players, seats rotated by seed:
/// plain wins, draws and the draw-weighted win share, with 95% intervals.
fn arena(label: &str, make: impl Fn() -> Box<dyn Agent<Korovan>> + Send + Sync + 'static, games: u64) {
    use std::sync::Mutex;
    let arena = Arena::<Korovan>::new(KorovanConfig::with_players(5));
    let entrants = vec![
        Entrant::new(label, make),
        Entrant::new("random", || Box::new(RandomAgent)),
        Entrant::new("random", || Box::new(RandomAgent)),
        Entrant::new("random", || Box::new(RandomAgent)),
        Entrant::new("random", || Box::new(RandomAgent)),
    ];
    let shares = Mutex::new((0.0f64, 0.0f64)); // sum, sum of squares
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let start = std::time::Instant::now();
    let report = arena
        .run_with(&entrants, 0..games, threads, &|g| {
            let s = win_share(g.state.outcome(), g.seat_of[0]);
            let mut t = shares.lock().unwrap();
            t.0 += s;
            t.1 += s * s;
        })
        .unwrap();
    let (sum, sq) = *shares.lock().unwrap();
    let n = games as f64;
    let mean = sum / n;
    let sd = ((sq / n - mean * mean).max(0.0) * n / (n - 1.0)).sqrt();
    let half = 1.96 * sd / n.sqrt();
    let e = &report.entrants[0];
    let (lo, hi) = e.win_interval();
    println!(
        "{label}: {games} games, {} wins ({:.1}% [{:.1}%, {:.1}%]), {} draws, win share {:.1}% [{:.1}%, {:.1}%], mean cows {:.2}, {:.1} s",
        e.wins,
        100.0 * e.win_rate(),
        100.0 * lo,
        100.0 * hi,
        e.draws,
        100.0 * mean,
        100.0 * (mean - half),
        100.0 * (mean + half),
        e.mean_score(),
        start.elapsed().as_secs_f64()
    );
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `KOROVAN_GAMES=20000 cargo test --release -p korovan-core --test bots -- --ignored --nocapture arena_heuristic`
#[test]
#[ignore = "release-mode measurement"]
fn arena_heuristic() {
    let f = |name: &str, d: f64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let bot = KorovanHeuristic::default()
        .two_ambush_prior(f("KH_PRIOR", 0.5))
        .bust_penalty(f("KH_BUST", 1.0))
        .helper_keep(f("KH_KEEP", 0.85))
        .future_hit_rate(f("KH_HIT", 0.3));
    arena("heuristic", move || Box::new(bot), env_u64("KOROVAN_GAMES", 20_000));
}

/// `KOROVAN_GAMES=1000 KOROVAN_ITERS=1000 cargo test --release -p korovan-core --test bots -- --ignored --nocapture arena_ismcts`
#[test]
#[ignore = "release-mode measurement"]
fn arena_ismcts() {
    let iters = env_u64("KOROVAN_ITERS", 1000);
    let c = std::env::var("KOROVAN_C").ok().and_then(|v| v.parse().ok()).unwrap_or(0.7);
    let variant = std::env::var("KOROVAN_VARIANT").unwrap_or_default();
    let label = format!("ismcts:{iters} c={c} {variant}");
    let v2 = variant.clone();
    arena(
        &label,
        move || {
            let searcher = Arc::new(AtomicUsize::new(0));
            let mut a = IsMctsAgent::<Korovan>::with_iterations(iters).exploration(c);
            if v2.split(',').any(|p| p == "selfheur") {
                a = a.rollout_agent(Box::new(SelfHeuristic {
                    searcher: searcher.clone(),
                    bot: KorovanHeuristic::new(),
                }));
            }
            for part in v2.split(',') {
                a = match part {
                    "openloop" => a.open_loop_others(true),
                    "nochance" => a.chance_branching(false),
                    "heurroll" => a.rollout_agent(Box::new(KorovanHeuristic::default())),
                    p if p.starts_with("nodes") => a.max_nodes(p[5..].parse().unwrap()),
                    p if p.starts_with("depth") => a.rollout_depth(p[5..].parse().unwrap()),
                    p if p.starts_with("margin") => a.evaluation(Evaluation::ScoreMargin(p[6..].parse().unwrap())),
                    _ => a,
                };
            }
            Box::new(Searcher { inner: a, seat: searcher })
        },
        env_u64("KOROVAN_GAMES", 1000),
    );
}

/// A rollout policy: the heuristic for the searching seat (its own future
/// play), uniformly random for the others (the opponents it actually faces).
struct SelfHeuristic {
    searcher: Arc<AtomicUsize>,
    bot: KorovanHeuristic,
}

impl Agent<Korovan> for SelfHeuristic {
    fn name(&self) -> String {
        "self-heuristic".into()
    }
    fn act(&mut self, state: &Korovan, seat: usize, rng: &mut GameRng) -> Action {
        if seat == self.searcher.load(Ordering::Relaxed) {
            self.bot.act(state, seat, rng)
        } else {
            RandomAgent.act(state, seat, rng)
        }
    }
}

/// An ISMCTS agent that tells its rollout policy which seat is searching.
struct Searcher {
    inner: IsMctsAgent<Korovan>,
    seat: Arc<AtomicUsize>,
}

impl Agent<Korovan> for Searcher {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn act(&mut self, state: &Korovan, seat: usize, rng: &mut GameRng) -> Action {
        self.seat.store(seat, Ordering::Relaxed);
        self.inner.act(state, seat, rng)
    }
    fn reset(&mut self) {
        self.inner.reset();
    }
}

/// ISMCTS iterations per second on Korovan, 5 players (one thread; the
/// search seat against four random agents, seats 0..5 in turn):
/// `cargo test --release -p korovan-core --test bots -- --ignored --nocapture ismcts_speed`
#[test]
#[ignore = "release-mode measurement"]
fn ismcts_speed() {
    let iters = env_u64("KOROVAN_ITERS", 1000);
    for (label, branching, guided) in [
        ("default", true, false),
        ("chance_branching(false)", false, false),
        ("chance_branching(false), self-heuristic rollouts", false, true),
    ] {
        let seat = Arc::new(AtomicUsize::new(0));
        let mut inner = IsMctsAgent::<Korovan>::with_iterations(iters).chance_branching(branching);
        if guided {
            inner =
                inner.rollout_agent(Box::new(SelfHeuristic { searcher: seat.clone(), bot: KorovanHeuristic::new() }));
        }
        let mut searcher = Searcher { inner, seat };
        for seed in 0..env_u64("KOROVAN_GAMES", 20) {
            let mut randoms = [RandomAgent, RandomAgent, RandomAgent, RandomAgent];
            let mut agents: Vec<&mut dyn Agent<Korovan>> =
                randoms.iter_mut().map(|r| r as &mut dyn Agent<Korovan>).collect();
            agents.insert((seed % 5) as usize, &mut searcher);
            play_game::<Korovan>(&KorovanConfig::with_players(5), &mut agents, seed).unwrap();
        }
        let s = searcher.inner.total_stats();
        println!(
            "ismcts:{iters} {label}: {} searches, {} iterations in {:.2} s: {:.0} iterations/s, {:.1} nodes/search",
            s.searches,
            s.iterations,
            s.elapsed.as_secs_f64(),
            s.iterations_per_second(),
            s.nodes as f64 / s.searches.max(1) as f64
        );
    }
}
