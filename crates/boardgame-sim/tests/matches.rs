//! Matches of named agents: a match tallied game by game from the driver's
//! records is the arena's report of the same seeds, and bad counts, seats
//! and unfinished games are refused with a message.

use boardgame_kit::{AgentSpec, ArenaReport, EntrantStats, Game};
use boardgame_sim::matches::{arena_report, check_agent_count, play_record, seats, seed_range, tally_game};
use caravan_core::{Caravan, CaravanConfig};

fn config() -> CaravanConfig {
    CaravanConfig { max_turns: 20, ..CaravanConfig::with_players(2) }
}

#[test]
fn a_tallied_match_is_the_arenas_report() {
    let specs = [AgentSpec::Heuristic, AgentSpec::Random];
    let seeds = seed_range(40, 6).unwrap();
    let arena = arena_report::<Caravan>(config(), &specs, seeds.clone(), 2, false).unwrap();
    let entrants = specs.iter().map(|s| EntrantStats { name: s.to_string(), ..Default::default() }).collect();
    let mut tally = ArenaReport { entrants, games: 0, length_sum: 0 };
    for seed in seeds {
        let record = play_record::<Caravan>(&config(), &specs, seed).unwrap();
        let state = record.replay::<Caravan>().unwrap();
        tally_game(&mut tally, &state, &[0, 1], record.actions.len() as u64).unwrap();
    }
    assert_eq!(tally, arena);
    assert_eq!(arena.games, 6);
}

#[test]
fn bad_matches_are_refused_with_a_message() {
    let message = |e: boardgame_sim::SimError| e.to_string();
    assert_eq!(seats::<Caravan>(&config()), Ok(2));
    assert!(message(check_agent_count(2, 3).unwrap_err()).contains("2 seats but 3 agents"));
    assert!(message(seed_range(u64::MAX, 2).unwrap_err()).contains("pass 2**64"));
    let one = [AgentSpec::Random];
    assert!(arena_report::<Caravan>(config(), &one, 0..1, 1, true).is_err());
    assert!(play_record::<Caravan>(&config(), &one, 0).is_err());
    let mut report = ArenaReport { entrants: vec![EntrantStats::default(); 2], games: 0, length_sum: 0 };
    let fresh = Caravan::new_game(&config()).unwrap();
    assert!(message(tally_game(&mut report, &fresh, &[0, 1], 0).unwrap_err()).contains("not over"));
    let specs = [AgentSpec::Random, AgentSpec::Random];
    let over = play_record::<Caravan>(&config(), &specs, 3).unwrap().replay::<Caravan>().unwrap();
    for seat_of in [&[0, 0][..], &[0][..], &[0, 2][..]] {
        assert!(message(tally_game(&mut report, &over, seat_of, 1).unwrap_err()).contains("its own seat"));
    }
    assert_eq!(report.games, 0, "nothing was counted");
}
