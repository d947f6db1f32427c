//! Writing an agent of your own and ranking it in an `Arena` against the
//! built-in ones.
//!
//! `Greedy` plays Caravan one action ahead: it tries every legal action on
//! a copy of the game and keeps the one that leaves it furthest ahead of
//! its best opponent in points (C-7.3), ties broken at random. Caravan is a
//! game of perfect information (C-8.2) and the copy stops before the next
//! draw from the bag, so looking ahead this way sees nothing hidden. One
//! action is short-sighted — most actions score nothing at once, so it
//! often picks among ties at random — and the table shows how far the
//! engine's planning heuristic is ahead of it: a baseline to beat with an
//! agent of your own.
//!
//! The arena plays seeded games between `greedy`, the engine's heuristic
//! and the kit's random agent, rotating them through the seats, and prints
//! each one's win rate and win share with their 95% intervals.
//!
//! Run with `cargo run --release --example custom_agent` (`--quick` plays a
//! handful of games; `cargo test --examples` runs it so).

use boardgames::caravan::{Caravan, CaravanConfig, CaravanHeuristic};
use boardgames::kit::{Agent, Arena, ArenaReport, Entrant, Game, GameRng, RandomAgent};

/// One-action lookahead on the points margin.
#[derive(Clone, Debug, Default)]
struct Greedy;

impl Greedy {
    /// `seat`'s points minus the best other seat's, in `state`.
    fn margin(state: &Caravan, seat: usize) -> i32 {
        let best_other = (0..state.num_players()).filter(|&s| s != seat).map(|s| state.points(s)).max();
        state.points(seat) - best_other.unwrap_or(0)
    }
}

impl Agent<Caravan> for Greedy {
    fn name(&self) -> String {
        "greedy".to_string()
    }

    fn act(&mut self, state: &Caravan, seat: usize, rng: &mut GameRng) -> <Caravan as Game>::Action {
        let mut legal = <Caravan as Game>::ActionList::default();
        state.legal_actions(&mut legal);
        let mut best = i32::MIN;
        let mut chosen = legal[0];
        let mut ties = 0;
        for &action in legal.iter() {
            let mut next = *state;
            next.apply_unchecked(action);
            let value = Greedy::margin(&next, seat);
            if value > best {
                (best, chosen, ties) = (value, action, 1);
            } else if value == best {
                // Reservoir sampling: each of the tied actions is kept with
                // probability 1/ties, from the seat's own stream.
                ties += 1;
                if rng.index(ties) == 0 {
                    chosen = action;
                }
            }
        }
        chosen
    }
}

/// Plays `games` seeded games of 3-player Caravan between the three agents
/// and returns the arena's report.
fn rank(games: u64, threads: usize) -> ArenaReport {
    let entrants = [
        Entrant::new("greedy", || Box::new(Greedy)),
        Entrant::new("heuristic", || Box::new(CaravanHeuristic::new())),
        Entrant::new("random", || Box::new(RandomAgent)),
    ];
    let arena = Arena::<Caravan>::new(CaravanConfig::with_players(3));
    arena.run(&entrants, 0..games, threads).expect("3 entrants for 3 seats, legal actions only")
}

/// The report as a table: win rate and win share with 95% intervals.
fn table(report: &ArenaReport) -> String {
    let pct = |x: f64| format!("{:5.1}%", 100.0 * x);
    let mut out = format!("{} games of 3-player Caravan, agents rotating through the seats\n", report.games);
    out.push_str("agent       win rate  95% interval        share  95% interval     mean points\n");
    for e in &report.entrants {
        let (lo, hi) = e.win_interval();
        let (slo, shi) = e.win_share_interval();
        out.push_str(&format!(
            "{:<10}  {}  [{}, {}]  {}  [{}, {}]  {:>8.2}\n",
            e.name,
            pct(e.win_rate()),
            pct(lo),
            pct(hi),
            pct(e.win_share()),
            pct(slo),
            pct(shi),
            e.mean_score()
        ));
    }
    out
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let report = rank(if quick { 6 } else { 300 }, threads);
    print!("{}", table(&report));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_plays_legal_actions_and_is_ranked() {
        let report = rank(6, 2);
        assert_eq!(report.games, 6);
        assert_eq!(report.entrants.len(), 3);
        assert!(report.entrants.iter().all(|e| e.games == 6));
        let text = table(&report);
        for name in ["greedy", "heuristic", "random", "95% interval"] {
            assert!(text.contains(name), "{text}");
        }
    }

    #[test]
    fn greedy_takes_the_best_margin() {
        // From a reachable position, no legal action leaves a better margin
        // than greedy's choice.
        let config = CaravanConfig::with_players(2);
        let mut state = Caravan::new_game(&config).expect("valid config");
        let mut rng = GameRng::new(5);
        let mut seen = 0;
        while !state.is_terminal() && seen < 40 {
            if let boardgames::kit::Turn::Player(seat) = state.turn() {
                let choice = Greedy.act(&state, seat, &mut rng);
                let mut after = state;
                after.apply(choice).expect("greedy plays legal actions");
                let mut legal = <Caravan as Game>::ActionList::default();
                state.legal_actions(&mut legal);
                for &a in legal.iter() {
                    let mut other = state;
                    other.apply_unchecked(a);
                    assert!(Greedy::margin(&other, seat) <= Greedy::margin(&after, seat));
                }
                seen += 1;
            }
            let a = boardgames::kit::random_action(&state, &mut rng).expect("the game goes on");
            state.apply(a).expect("legal");
        }
        assert!(seen > 0);
    }
}
