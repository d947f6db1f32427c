//! The Caravan heuristic agent (`CaravanHeuristic`): legality over seeded
//! games of every player count, reproducibility, targeted decisions on
//! hand-made positions, strength against random play; ignored release-mode
//! arena and speed harnesses for the search agents.

mod common;

use boardgame_kit::{
    Agent, AgentSpec, Arena, Bots, Budget, Entrant, Evaluation, Game, GameRng, IsMctsAgent, Outcome, RandomAgent,
    play_game,
};
use caravan_core::{Caravan, CaravanConfig, CaravanHeuristic, Cargo, Kind, tuned_ismcts};
use common::*;

#[test]
fn the_tuned_search_is_the_ismcts_h_setting_of_docs_bots_md() {
    let agent = tuned_ismcts(Budget::Iterations(7));
    let s = agent.settings();
    assert_eq!(s.budget, Budget::Iterations(7));
    assert_eq!(s.rollout_depth, Some(20));
    assert_eq!(s.evaluation, Evaluation::ScoreMargin(30.0));
    assert_eq!(s.exploration, 0.1);
    assert_eq!(s.prior_weight, 1.0);
    assert!(s.chance_branching && !s.open_loop_others);
}

#[test]
fn bots_name_the_heuristic_and_the_tuned_search() {
    let heuristic = <Caravan as Bots>::heuristic_agent().unwrap();
    assert_eq!(heuristic.name(), "heuristic");
    let config = CaravanConfig::with_players(2);
    // by name, as every front end builds them
    let mut tuned = "ismcts-h:30".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
    let mut heuristic = "heuristic".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
    let mut agents: [&mut dyn Agent<Caravan>; 2] = [&mut *tuned, &mut *heuristic];
    let g = play_game::<Caravan>(&CaravanConfig { max_turns: 30, ..config }, &mut agents, 4).unwrap();
    assert!(g.state.is_terminal());
    // the same seeds give the same game with the engine's constructor
    let mut tuned = tuned_ismcts(Budget::Iterations(30));
    let mut heuristic = CaravanHeuristic::new();
    let mut agents: [&mut dyn Agent<Caravan>; 2] = [&mut tuned, &mut heuristic];
    let again = play_game::<Caravan>(&CaravanConfig { max_turns: 30, ..config }, &mut agents, 4).unwrap();
    assert_eq!(again.record.actions, g.record.actions);
    // the record names the agents that played: `ismcts-h`, not the plain search it is made of
    assert_eq!(g.record.agents, ["ismcts-h:30", "heuristic"]);
    assert_eq!(again.record.agents, ["ismcts:30", "heuristic"]);
}

/// Every agent built from a name answers to that name (tables, records).
#[test]
fn agents_built_by_name_answer_to_it() {
    for name in [
        "random",
        "heuristic",
        "ismcts:7",
        "ismcts-h:7",
        "ismcts-h:20ms",
        "flatmc:7",
        "flatmc-h:7",
        "learned",
        "learned:0.5",
        "learned-ismcts:7",
        "learned-ismcts:10ms",
    ] {
        let spec: AgentSpec = name.parse().unwrap();
        assert_eq!(spec.build::<Caravan>().unwrap().name(), name);
        assert_eq!(spec.entrant::<Caravan>().unwrap().agent().name(), name);
    }
}

/// `flatmc-h:N` (the rollout teacher of docs/learning.md): every legal action tried by
/// heuristic rollouts on common random numbers; it plays the action of
/// best mean value, and its policy is the softmax of those values over every
/// legal action.
#[test]
fn flatmc_h_improves_on_the_heuristic_by_rollouts_and_reports_its_values() {
    let config = CaravanConfig { max_turns: 40, ..CaravanConfig::with_players(2) };
    let mut flat = "flatmc-h:400".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
    let mut heuristic = CaravanHeuristic::new();
    let mut agents: [&mut dyn Agent<Caravan>; 2] = [&mut *flat, &mut heuristic];
    let g = play_game::<Caravan>(&config, &mut agents, 8).unwrap();
    assert!(g.state.is_terminal());
    // a position of that game where the mover has many legal actions
    let mut s = Caravan::new_game(&config).unwrap();
    let mut rng = GameRng::new(1);
    let mut policy = Vec::new();
    let mut checked = 0;
    for &id in &g.record.actions {
        if let boardgame_kit::Turn::Player(seat) = s.turn() {
            let mut list = <Caravan as Game>::ActionList::default();
            s.legal_actions(&mut list);
            let legal: Vec<_> = list.iter().copied().collect();
            if legal.len() > 20 && checked < 3 {
                let chosen = flat.act(&s, seat, &mut rng);
                flat.policy(&mut policy);
                assert_eq!(policy.len(), legal.len(), "every legal action has a value");
                assert!(policy.iter().all(|(a, p)| legal.contains(a) && *p > 0.0 && p.is_finite()));
                assert!((policy.iter().map(|p| p.1).sum::<f64>() - 1.0).abs() < 1e-9);
                // the move played has the top value (ties: the first of them)
                let top = policy.iter().map(|p| p.1).fold(0.0, f64::max);
                assert_eq!(policy.iter().find(|p| p.1 == top).unwrap().0, chosen);
                checked += 1;
            }
        }
        s.apply(Caravan::action_from_id(&config, id).unwrap()).unwrap();
    }
    assert_eq!(checked, 3);
}

fn short(players: u8, max_turns: u32) -> CaravanConfig {
    CaravanConfig { max_turns, ..cfg(players) }
}

fn decide(s: &Caravan) -> String {
    let seat = s.turn_index() as usize % s.num_players();
    CaravanHeuristic::new().act(s, seat, &mut GameRng::new(0)).to_string()
}

// ----- legality and reproducibility ------------------------------------------

#[test]
fn plays_only_legal_actions_for_every_player_count() {
    // `play_game` validates every action; all heuristic seats and one
    // heuristic seat against random ones, with and without random moves.
    for players in 2..=4u8 {
        for seed in 0..6u64 {
            let config = short(players, 120);
            let mut bots: Vec<CaravanHeuristic> = (0..players)
                .map(|i| {
                    if seed % 2 == 0 {
                        CaravanHeuristic::new()
                    } else {
                        CaravanHeuristic::new().epsilon(0.1 * f64::from(i))
                    }
                })
                .collect();
            let mut agents: Vec<&mut dyn Agent<Caravan>> =
                bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
            let g = play_game::<Caravan>(&config, &mut agents, seed)
                .unwrap_or_else(|e| panic!("{players}p seed {seed}: {e}"));
            assert!(g.state.is_terminal());
            let mut bot = CaravanHeuristic::new();
            let mut rest: Vec<RandomAgent> = (1..players).map(|_| RandomAgent).collect();
            let mut agents: Vec<&mut dyn Agent<Caravan>> = vec![&mut bot];
            agents.extend(rest.iter_mut().map(|r| r as &mut dyn Agent<Caravan>));
            play_game::<Caravan>(&short(players, 60), &mut agents, seed + 100).unwrap();
        }
    }
}

#[test]
fn heuristic_games_end_naturally() {
    // C-7.1: the planner delivers, so its games reach the natural end.
    for players in 2..=4u8 {
        let mut bots: Vec<CaravanHeuristic> = (0..players).map(|_| CaravanHeuristic::new()).collect();
        let mut agents: Vec<&mut dyn Agent<Caravan>> = bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
        let g = play_game::<Caravan>(&cfg(players), &mut agents, 7).unwrap();
        assert_eq!(g.state.end_kind(), Some(caravan_core::EndKind::Natural), "{players} players");
        assert_eq!(g.state.bag_len(), 0);
    }
}

#[test]
fn same_seed_same_game() {
    for epsilon in [0.0, 0.2] {
        let run = |seed: u64| {
            let mut a = CaravanHeuristic::new().epsilon(epsilon);
            let mut b = CaravanHeuristic::new().epsilon(epsilon);
            let mut c = RandomAgent;
            let mut agents: [&mut dyn Agent<Caravan>; 3] = [&mut a, &mut b, &mut c];
            play_game::<Caravan>(&short(3, 100), &mut agents, seed).unwrap().record.actions
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }
    assert_eq!(Agent::<Caravan>::name(&CaravanHeuristic::new()), "heuristic");
}

#[test]
fn plan_outside_its_turn_is_end() {
    let s = Caravan::new_game(&cfg(2)).unwrap(); // setup draws pending
    assert_eq!(CaravanHeuristic::new().plan(&s, 0).to_string(), "end");
}

// ----- targeted decisions ------------------------------------------------------

#[test]
fn delivers_when_a_delivery_is_available() {
    // C-5.4: R1's city is d1; a chain b1-c1-d1 with the good on b1.
    let setup = base(cfg(2), 6, 4)
        .camel(0, sq("b1"), Cargo::Top(Kind::R1))
        .camel(0, sq("c1"), Cargo::Empty)
        .camel(0, sq("d1"), Cargo::Empty)
        .camel(0, sq("a1"), Cargo::Empty);
    let s = game(&setup);
    assert_eq!(decide(&s), "good R1 b1=>d1");
}

#[test]
fn extends_a_chain_towards_the_city() {
    // The good R1 on b1 wants d1: the cheapest chain fills c1 and d1; the
    // planner places the next link next to its chain, on the way.
    let setup = base(cfg(2), 6, 4).camel(0, sq("b1"), Cargo::Top(Kind::R1));
    let mut s = game(&setup);
    assert_eq!(decide(&s), "move supply->c1");
    play(&mut s, "move supply->c1");
    assert_eq!(decide(&s), "move supply->d1");
    play(&mut s, "move supply->d1");
    assert_eq!(decide(&s), "good R1 b1=>d1");
}

#[test]
fn moves_a_good_towards_its_city_when_no_camel_is_spare() {
    // Five camels on the board, the unladen ones all links of the chain
    // d1-d2-d3 of the good C3 (city d5): no camel is spare, so the good
    // moves along its chain to d3, nearest d5, freeing the camels behind.
    let setup = base(cfg(2), 6, 4)
        .camel(0, sq("d1"), Cargo::Top(Kind::C3))
        .camel(0, sq("d2"), Cargo::Empty)
        .camel(0, sq("d3"), Cargo::Empty)
        .camel(0, sq("a7"), Cargo::Top(Kind::C1))
        .camel(0, sq("g7"), Cargo::Top(Kind::C2));
    let s = game(&setup);
    assert_eq!(decide(&s), "good C3 d1=>d3");
}

#[test]
fn steals_in_a_clear_case() {
    // C-5.5: P1's rare R2 (city g4) lies on top of its camel on f4, next to
    // the city, where P0 has an unladen camel and a camel on g4: stealing
    // and moving it on delivers 6 points for 2 actions.
    let setup = base(cfg(2), 6, 4)
        .camel(1, sq("f4"), Cargo::Top(Kind::R2))
        .camel(1, sq("a4"), Cargo::Empty)
        .camel(0, sq("f4"), Cargo::Empty)
        .camel(0, sq("g4"), Cargo::Empty);
    let mut s = game(&setup);
    assert_eq!(decide(&s), "steal R2 f4 from P1");
    play(&mut s, "steal R2 f4 from P1");
    assert_eq!(decide(&s), "good R2 under f4=>g4");
}

#[test]
fn picks_up_a_good_its_camel_stands_on() {
    // C-5.2: an unladen camel on space 1 (a1) with a rare good (city d1)
    // and a demand marker.
    let setup = base(cfg(2), 6, 4).clear_space(1).lay(1, Kind::R1).camel(0, sq("a1"), Cargo::Empty);
    let s = game(&setup);
    assert_eq!(decide(&s), "pick 1");
}

#[test]
fn ends_the_turn_when_nothing_useful_fits() {
    // Every camel laden and no chain can grow (no spare camel, nothing to
    // move forward): the planner ends its turn.
    let mut setup = base(cfg(2), 6, 4);
    for c in ["a4", "b6", "c6", "e6", "f6"] {
        setup = setup.camel(0, sq(c), Cargo::Top(Kind::C1));
    }
    let s = game(&setup);
    assert_eq!(decide(&s), "end");
}

#[test]
fn does_not_end_the_game_by_a_losing_delivery() {
    // C-7.1: with the bag empty the next delivery ends the game; behind by
    // more than the good is worth, the planner does not deliver.
    let setup = base(cfg(2), 6, 4)
        .camel(0, sq("c4"), Cargo::Top(Kind::C3))
        .camel(0, sq("d4"), Cargo::Empty)
        .camel(0, sq("d5"), Cargo::Empty)
        .empty_bag_into(1);
    let s = game(&setup);
    assert!(s.points(1) > s.points(0) + 3);
    assert_ne!(decide(&s), "good C3 c4=>d5");
    // Ahead, it delivers and wins.
    let setup = base(cfg(2), 6, 4)
        .camel(0, sq("c4"), Cargo::Top(Kind::C3))
        .camel(0, sq("d4"), Cargo::Empty)
        .camel(0, sq("d5"), Cargo::Empty)
        .empty_bag_into(0);
    let s = game(&setup);
    assert_eq!(decide(&s), "good C3 c4=>d5");
}

// ----- strength -----------------------------------------------------------------

#[test]
fn beats_random_play() {
    // A random agent wins about half of these; the planner must win at
    // least 80% of 40 two-player games with seats alternating.
    let mut wins = 0;
    for seed in 0..40u64 {
        let seat = (seed % 2) as usize;
        let mut bot = CaravanHeuristic::new();
        let mut random = RandomAgent;
        let mut agents: [&mut dyn Agent<Caravan>; 2] =
            if seat == 0 { [&mut bot, &mut random] } else { [&mut random, &mut bot] };
        let g = play_game::<Caravan>(&short(2, 200), &mut agents, seed).unwrap();
        if g.state.outcome() == Some(Outcome::Winner(seat)) {
            wins += 1;
        }
    }
    assert!(wins >= 32, "{wins}/40");
}

// ----- arena and speed (release, ignored) --------------------------------------

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The ISMCTS agent of the arena tables, configured from the environment:
/// `CARAVAN_ITERS` (1000), `CARAVAN_C` (exploration, 0.7), `CARAVAN_DEPTH`
/// (rollout depth, 0 = to the end), `CARAVAN_MARGIN` (score-margin scale,
/// 6), `CARAVAN_ROLLOUT` (`heuristic` or `random`), `CARAVAN_EPS`
/// (the rollout heuristic's random-move rate).
fn ismcts_from_env() -> IsMctsAgent<Caravan> {
    let mut a = IsMctsAgent::<Caravan>::with_iterations(env("CARAVAN_ITERS", 1000)).exploration(env("CARAVAN_C", 0.7));
    let depth: usize = env("CARAVAN_DEPTH", 40);
    if depth > 0 {
        a = a.rollout_depth(depth).evaluation(Evaluation::ScoreMargin(env("CARAVAN_MARGIN", 6.0)));
    }
    if env("CARAVAN_ROLLOUT", "heuristic".to_string()) == "heuristic" {
        a = a.rollout_agent(Box::new(CaravanHeuristic::new().epsilon(env("CARAVAN_EPS", 0.0))));
    }
    a
}

/// `CARAVAN_GAMES=100 CARAVAN_OPPONENT=heuristic cargo test --release -p caravan-core --test bots -- --ignored --nocapture arena_ismcts`
#[test]
#[ignore = "release-mode measurement"]
fn arena_ismcts() {
    let games: u64 = env("CARAVAN_GAMES", 100);
    let opponent: String = env("CARAVAN_OPPONENT", "heuristic".to_string());
    let arena = Arena::<Caravan>::new(cfg(env("CARAVAN_PLAYERS", 2u8)));
    let opp = opponent.clone();
    let entrants = vec![
        Entrant::new("ismcts", || Box::new(ismcts_from_env()) as Box<dyn Agent<Caravan>>),
        Entrant::new(opponent.clone(), move || -> Box<dyn Agent<Caravan>> {
            if opp == "random" { Box::new(RandomAgent) } else { Box::new(CaravanHeuristic::new()) }
        }),
    ];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let start = std::time::Instant::now();
    let report = arena.run(&entrants, 0..games, threads).unwrap();
    for e in &report.entrants {
        let (lo, hi) = e.win_interval();
        println!(
            "{}: {} games, {} wins, {} draws, {:.1}% [{:.1}%, {:.1}%], mean score {:.1}",
            e.name,
            e.games,
            e.wins,
            e.draws,
            100.0 * e.win_rate(),
            100.0 * lo,
            100.0 * hi,
            e.mean_score()
        );
    }
    println!("against {opponent}: {:.1} s, mean length {:.0}", start.elapsed().as_secs_f64(), report.mean_length());
}

/// ISMCTS iterations per second (one thread), over positions of heuristic
/// games: `cargo test --release -p caravan-core --test bots -- --ignored --nocapture ismcts_speed`
#[test]
#[ignore = "release-mode measurement"]
fn ismcts_speed() {
    for players in [2u8, 3] {
        let mut agent = ismcts_from_env();
        let mut bots: Vec<CaravanHeuristic> = (0..players).map(|_| CaravanHeuristic::new()).collect();
        let mut agents: Vec<&mut dyn Agent<Caravan>> = bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
        let g = play_game::<Caravan>(&cfg(players), &mut agents, 3).unwrap();
        let mut positions = Vec::new();
        g.record.replay_with::<Caravan>(|_, _, s| positions.push(*s)).unwrap();
        let mut rng = GameRng::new(1);
        for s in positions.iter().filter(|s| matches!(s.turn(), boardgame_kit::Turn::Player(_))).step_by(4) {
            let seat = s.turn_index() as usize % usize::from(players);
            agent.act(s, seat, &mut rng);
        }
        let t = agent.total_stats();
        println!("{players} players: {} iterations, {:.0} iterations/s", t.iterations, t.iterations_per_second());
    }
}

/// Prints the root statistics of one ISMCTS decision next to the
/// heuristic's plan, on positions of a heuristic game (a tuning aid).
#[test]
#[ignore = "release-mode measurement"]
fn ismcts_root_debug() {
    let mut bots = [CaravanHeuristic::new(), CaravanHeuristic::new()];
    let [a, b] = &mut bots;
    let mut agents: [&mut dyn Agent<Caravan>; 2] = [a, b];
    let g = play_game::<Caravan>(&cfg(2), &mut agents, 3).unwrap();
    let mut positions = Vec::new();
    g.record.replay_with::<Caravan>(|_, _, s| positions.push(*s)).unwrap();
    let step: usize = env("CARAVAN_STEP", 40);
    for s in positions
        .iter()
        .filter(|s| matches!(s.turn(), boardgame_kit::Turn::Player(_)))
        .skip(step)
        .step_by(17)
        .take(env("CARAVAN_TAKE", 3))
    {
        let seat = s.turn_index() as usize % 2;
        let mut agent = ismcts_from_env();
        let chosen = agent.act(s, seat, &mut GameRng::new(1));
        println!(
            "turn {} left {} points {}-{}  heuristic: {}  ismcts: {chosen}",
            s.turn_index(),
            s.actions_left(),
            s.points(seat),
            s.points(1 - seat),
            CaravanHeuristic::new().plan(s, seat)
        );
        let h = CaravanHeuristic::new().plan(s, seat);
        let edges = agent.root_edges();
        if let Some((i, e)) = edges.iter().enumerate().find(|(_, e)| e.action == h) {
            println!("  heuristic's move ranks {i}: visits {} mean {:.3}", e.visits, e.mean_return);
        }
        for e in edges.iter().take(8) {
            println!("  {} visits {} mean {:.3}", e.action, e.visits, e.mean_return);
        }
    }
}

/// Mean score margin after heuristic rollouts from the children of one
/// position (a tuning aid): `CARAVAN_STEP`, `CARAVAN_DEPTH`.
#[test]
#[ignore = "release-mode measurement"]
fn rollout_values_debug() {
    let mut bots = [CaravanHeuristic::new(), CaravanHeuristic::new()];
    let [a, b] = &mut bots;
    let mut agents: [&mut dyn Agent<Caravan>; 2] = [a, b];
    let g = play_game::<Caravan>(&cfg(2), &mut agents, 3).unwrap();
    let mut positions = Vec::new();
    g.record.replay_with::<Caravan>(|_, _, s| positions.push(*s)).unwrap();
    let step: usize = env("CARAVAN_STEP", 57);
    let s = *positions.iter().filter(|s| matches!(s.turn(), boardgame_kit::Turn::Player(_))).nth(step).unwrap();
    let seat = s.turn_index() as usize % 2;
    let depth: usize = env("CARAVAN_DEPTH", 20);
    println!("{s}");
    let h = CaravanHeuristic::new().plan(&s, seat);
    for first in [h, caravan_core::Action::END] {
        let mut sum = 0i64;
        let mut rng = GameRng::new(9);
        let mut bot = CaravanHeuristic::new();
        let mut chances = <Caravan as Game>::ChanceList::default();
        for _ in 0..env("CARAVAN_N", 200) {
            let mut t = s;
            t.apply(first).unwrap();
            for _ in 0..depth {
                let a = match t.turn() {
                    boardgame_kit::Turn::Terminal => break,
                    boardgame_kit::Turn::Chance => boardgame_kit::sample_chance(&t, &mut rng, &mut chances).unwrap(),
                    boardgame_kit::Turn::Player(p) => bot.act(&t, p, &mut rng),
                };
                if std::env::var("CARAVAN_TRACE").is_ok() {
                    print!("{a}; ");
                }
                t.apply(a).unwrap();
            }
            if std::env::var("CARAVAN_TRACE").is_ok() {
                println!("\n{t}");
            }
            sum += i64::from(t.points(seat) - t.points(1 - seat));
        }
        println!("{first}: mean margin {:.2}", sum as f64 / 200.0);
    }
}

// ----- no allocation per decision ------------------------------------------------

struct Counting;

thread_local! {
    static ALLOCATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn decisions_do_not_allocate() {
    let count = || ALLOCATIONS.with(|a| a.get());
    let start = count();
    let probe = std::hint::black_box(vec![1u8; 16]);
    assert!(count() > start && probe.len() == 16, "the counter sees allocations");
    for players in 2..=4u8 {
        let mut state = Caravan::new_game(&cfg(players)).unwrap();
        let mut bots = [CaravanHeuristic::new(), CaravanHeuristic::new().epsilon(0.2)];
        let mut rng = GameRng::new(u64::from(players));
        let mut chances = <Caravan as Game>::ChanceList::default();
        let mut decisions = 0usize;
        let mut allocated = 0usize;
        while !state.is_terminal() {
            let a = match state.turn() {
                boardgame_kit::Turn::Player(p) => {
                    let before = count();
                    let a = bots[p % 2].act(&state, p, &mut rng);
                    allocated += count() - before;
                    decisions += 1;
                    a
                }
                _ => boardgame_kit::sample_chance(&state, &mut rng, &mut chances).unwrap(),
            };
            state.apply(a).unwrap();
        }
        assert!(decisions > 100);
        assert_eq!(allocated, 0, "{players} players: {allocated} allocations in {decisions} decisions");
    }
}
