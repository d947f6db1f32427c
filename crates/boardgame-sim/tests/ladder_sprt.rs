//! The rating ladder and the sequential test: shards merge exactly, results
//! do not depend on threads, the ratings order the agents as their games
//! do, and the test decides the obvious cases and refuses bad arguments.

use boardgame_sim::SimError;
use boardgame_sim::games::GameName;
use boardgame_sim::ladder::{self, LadderSpec};
use boardgame_sim::simulate::Shard;
use boardgame_sim::sprt::{self, Bounds, Decision, SprtSpec, SprtState};

fn spec(threads: usize, shard: Option<Shard>) -> LadderSpec {
    LadderSpec {
        game: GameName::Caravan,
        players: vec![2, 3],
        config: None,
        agents: "random,heuristic,learned".into(),
        deals: 12,
        seed: 1_000_000,
        threads,
        shard,
    }
}

#[test]
fn a_ladder_merges_from_shards_and_ignores_threads() {
    let whole = ladder::run_ladder(&spec(1, None), &()).unwrap();
    assert_eq!(ladder::run_ladder(&spec(3, None), &()).unwrap(), whole, "threads change nothing");
    let mut acc = None;
    for i in [2, 0, 1] {
        let part = ladder::run_ladder(&spec(2, Some(Shard::new(i, 3).unwrap())), &()).unwrap();
        let part = ladder::parse(&ladder::to_json(&part)).unwrap();
        match &mut acc {
            None => acc = Some(part),
            Some(a) => ladder::merge(a, &part).unwrap(),
        }
    }
    assert_eq!(acc.as_ref(), Some(&whole), "shards in any order merge to the whole");
    // Every deal is played once by each of the 3 lineups.
    assert_eq!(whole.counts[0].games, 36);
    assert_eq!(whole.counts[1].games, 36);
    // Each agent fills 2 of 3 lineups at 2 players, every lineup at 3.
    assert!(whole.counts[0].by_agent.iter().all(|s| s.games == 24));
    assert!(whole.counts[1].by_agent.iter().all(|s| s.games == 36));
    // A shard counted twice, or another ladder, is refused.
    let mut twice = whole.clone();
    assert!(ladder::merge(&mut twice, &whole).unwrap_err().contains("already counted"));
    let mut other = whole.clone();
    other.agents[0] = "heuristic".into();
    assert!(ladder::merge(&mut twice, &other).unwrap_err().contains("different agents"));
}

#[test]
fn ratings_order_the_agents_as_their_games_do() {
    let mut s = spec(2, None);
    s.agents = "random,heuristic".into();
    s.players = vec![2];
    s.deals = 30;
    let r = ladder::run_ladder(&s, &()).unwrap();
    let rows = ladder::ratings(&r.counts[0]);
    assert_eq!(rows[0].agent, "random");
    assert!(rows[1].elo > rows[0].elo + 100.0, "{rows:?}");
    assert!((rows[0].elo + rows[1].elo).abs() < 1e-9, "the mean is 0");
    for x in &rows {
        assert!(x.elo_interval[0] < x.elo && x.elo < x.elo_interval[1], "{x:?}");
        assert!(x.share_interval[0] <= x.share && x.share <= x.share_interval[1] + 1e-9, "{x:?}");
        assert_eq!(x.fair_share, 0.5);
    }
    // The points are what the games say: random never beats the heuristic
    // more often than it loses.
    let p = &r.counts[0].points;
    assert!(p[1][0] > p[0][1], "{p:?}");
    let text = ladder::table(&r);
    assert!(text.find("heuristic").unwrap() < text.find("random").unwrap(), "best first:\n{text}");
}

#[test]
fn a_ladder_refuses_bad_arguments() {
    let usage = |mut f: Box<dyn FnMut(&mut LadderSpec)>| {
        let mut s = spec(1, None);
        f(&mut s);
        match ladder::run_ladder(&s, &()) {
            Err(SimError::Usage(m)) => m,
            other => panic!("not a usage error: {other:?}"),
        }
    };
    assert!(usage(Box::new(|s| s.agents = "random".into())).contains("at least two agents"));
    assert!(usage(Box::new(|s| s.agents = "random,random".into())).contains("listed twice"));
    assert!(usage(Box::new(|s| s.agents = "random,wizard".into())).contains("unknown agent `wizard`"));
    assert!(usage(Box::new(|s| s.players = vec![5])).contains("between 2 and 4"));
    assert!(usage(Box::new(|s| s.players = vec![])).contains("player count"));
    assert!(usage(Box::new(|s| s.players = vec![3, 2, 3])).contains("player count 3 is listed twice"));
    assert!(usage(Box::new(|s| s.threads = 0)).contains("threads must be in 1..=1024"));
    assert!(usage(Box::new(|s| s.threads = 1025)).contains("threads must be in 1..=1024"));
    assert!(usage(Box::new(|s| s.seed = u64::MAX)).contains("past the last seed"));
    assert!(ladder::parse("{}").is_err());
    let mut r = ladder::run_ladder(&spec(1, None), &()).unwrap();
    r.counts[0].points.pop();
    assert!(ladder::parse(&ladder::to_json(&r)).unwrap_err().contains("does not fit"));
}

fn sprt_spec(a: &str, b: &str, players: usize, threads: usize) -> SprtSpec {
    SprtSpec {
        game: if players == 2 { GameName::Caravan } else { GameName::Korovan },
        players: Some(players),
        config: None,
        a: a.into(),
        b: b.into(),
        bounds: None,
        alpha: 0.05,
        beta: 0.05,
        max_games: 2_000,
        seed: 1_000_000,
        threads,
    }
}

fn run(spec: &SprtSpec) -> (SprtState, Vec<SprtState>) {
    let mut steps = Vec::new();
    let end = sprt::run_sprt(spec, &mut |s| steps.push(s.clone())).unwrap();
    (end, steps)
}

#[test]
fn the_test_decides_the_obvious_cases_whatever_the_threads() {
    let (end, steps) = run(&sprt_spec("heuristic", "random", 2, 1));
    assert_eq!(end.decision, Some(Decision::Stronger));
    assert!(end.games.is_multiple_of(2), "pairs at 2 players");
    assert_eq!(steps.len() as u64, end.observations, "one step per observation");
    assert!(steps[..9].iter().all(|s| s.llr == 0.0 && s.decision.is_none()), "no decision before 10");
    assert!(end.llr >= end.upper);
    assert_eq!(run(&sprt_spec("heuristic", "random", 2, 3)).0, end, "threads change nothing");

    let (end, _) = run(&sprt_spec("random", "heuristic", 2, 2));
    assert_eq!(end.decision, Some(Decision::NotStronger));
    assert!(end.llr <= end.lower);

    // More than two seats: one A among B, bounds in share above 1/n.
    let (end, _) = run(&sprt_spec("heuristic", "random", 4, 2));
    assert_eq!(end.decision, Some(Decision::Stronger));
    assert_eq!(end.scores, [0.25, 0.28]);
    assert_eq!(end.observations, end.games, "one game an observation");

    // The cap: undecided (nothing is decided before the 10th pair).
    let mut capped = sprt_spec("heuristic", "random", 2, 2);
    capped.max_games = 19;
    let (end, _) = run(&capped);
    assert_eq!((end.decision, end.games), (Some(Decision::Undecided), 18));
    // An agent against itself is, soon enough, not stronger.
    assert_eq!(run(&sprt_spec("heuristic", "heuristic", 2, 2)).0.decision, Some(Decision::NotStronger));
}

#[test]
fn the_test_refuses_bad_arguments() {
    let usage = |s: SprtSpec| match sprt::run_sprt(&s, &mut |_| {}) {
        Err(SimError::Usage(m)) => m,
        other => panic!("not a usage error: {other:?}"),
    };
    let mut s = sprt_spec("heuristic", "random", 2, 1);
    s.alpha = 0.5;
    assert!(usage(s).contains("alpha"));
    let mut s = sprt_spec("heuristic", "random", 4, 1);
    s.bounds = Some(Bounds::Elo(0.0, 50.0));
    assert!(usage(s).contains("Elo bounds are for 2 players"));
    let mut s = sprt_spec("heuristic", "random", 2, 1);
    s.bounds = Some(Bounds::Elo(50.0, 0.0));
    assert!(usage(s).contains("must be above"));
    let mut s = sprt_spec("heuristic", "random", 2, 1);
    s.bounds = Some(Bounds::Share(0.0, 0.1));
    assert!(usage(s).contains("more than 2 players"));
    assert!(usage(sprt_spec("heuristic,random", "random", 2, 1)).contains("one agent each"));
    assert!(usage(sprt_spec("wizard", "random", 2, 1)).contains("unknown agent"));
}
