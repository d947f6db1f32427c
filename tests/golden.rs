//! Golden games: records of fixed seeds played by fixed agents, committed
//! under `tests/golden/` with the final state's rendering and scores.
//!
//! The test checks, for every golden file, that (1) the committed record
//! replays to a final state whose rendering and scores equal the committed
//! ones, and (2) playing the same seed with the same agents today produces
//! the very same record. Changing a rule, the record format, the driver or
//! the random streams therefore fails here until the rules version is bumped
//! and the files are regenerated with:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test golden
//! ```

use std::path::PathBuf;

use boardgames::caravan::{Caravan, CaravanConfig, CaravanHeuristic};
use boardgames::kit::{Agent, Game, GameRecord, RandomAgent, play_game};
use boardgames::korovan::{Korovan, KorovanConfig};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Golden<C> {
    record: GameRecord<C>,
    scores: Vec<i32>,
    render: String,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn check<G: Game + std::fmt::Display>(name: &str, config: G::Config, seed: u64)
where
    G::Config: Serialize + for<'de> Deserialize<'de>,
{
    check_with::<G>(name, config, seed, || Box::new(RandomAgent));
}

/// [`check`] with an agent of `agent` in every seat.
fn check_with<G: Game + std::fmt::Display>(
    name: &str,
    config: G::Config,
    seed: u64,
    agent: impl Fn() -> Box<dyn Agent<G>>,
) where
    G::Config: Serialize + for<'de> Deserialize<'de>,
{
    let n = G::new_game(&config).expect("golden configs are valid").num_players();
    let mut agents: Vec<Box<dyn Agent<G>>> = (0..n).map(|_| agent()).collect();
    let mut refs: Vec<&mut dyn Agent<G>> = agents.iter_mut().map(|a| &mut **a as &mut dyn Agent<G>).collect();
    let played = play_game::<G>(&config, &mut refs, seed).expect("the game plays");
    let scores: Vec<i32> = (0..n).map(|s| played.state.score(s)).collect();
    let fresh = Golden { record: played.record, scores, render: played.state.to_string() };
    let path = dir().join(format!("{name}.json"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(dir()).expect("create tests/golden");
        std::fs::write(&path, serde_json::to_string_pretty(&fresh).expect("serialize") + "\n").expect("write golden");
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (regenerate with UPDATE_GOLDEN=1 cargo test --test golden)", path.display())
    });
    let golden: Golden<G::Config> = serde_json::from_str(&text).expect("golden file parses");
    // (1) the committed record replays to the committed end
    let state = golden.record.replay::<G>().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(state.is_terminal(), "{name}: the golden game is complete");
    let scores: Vec<i32> = (0..n).map(|s| state.score(s)).collect();
    assert_eq!(scores, golden.scores, "{name}: scores");
    assert_eq!(state.to_string(), golden.render, "{name}: final rendering");
    // (2) the same seed and agents give the same record today
    assert_eq!(fresh.record, golden.record, "{name}: the seed no longer gives the same game");
}

#[test]
fn korovan_golden_games() {
    for (players, seed) in [(3, 1), (5, 2), (5, 3), (9, 4)] {
        let config = KorovanConfig { players, ..KorovanConfig::default() };
        check::<Korovan>(&format!("korovan-{players}p-seed{seed}"), config, seed);
    }
}

#[test]
fn caravan_golden_games() {
    for (players, seed) in [(2, 1), (3, 2), (4, 3)] {
        let config = CaravanConfig { players, max_turns: 120, ..CaravanConfig::default() };
        check::<Caravan>(&format!("caravan-{players}p-seed{seed}"), config, seed);
    }
}

/// C-6.1, C-7.2 (rules version 2): a game of heuristic players whose last
/// turn (`max_turns` 15) ends with the 4th pick-up since a refill; its record
/// ends with that refill's 4 draws (version 1 ended the game without them).
#[test]
fn caravan_golden_game_with_the_last_turns_refill() {
    let config = CaravanConfig { players: 2, max_turns: 15, ..CaravanConfig::default() };
    check_with::<Caravan>("caravan-2p-heuristic-seed152", config, 152, || Box::new(CaravanHeuristic::new()));
    let text = std::fs::read_to_string(dir().join("caravan-2p-heuristic-seed152.json")).expect("golden file");
    let golden: Golden<CaravanConfig> = serde_json::from_str(&text).expect("golden file parses");
    let ids = &golden.record.actions;
    let last: Vec<String> = ids[ids.len() - 4..]
        .iter()
        .map(|&id| Caravan::action_from_id(&config, id).expect("a known id").to_string())
        .collect();
    assert!(last.iter().all(|a| a.starts_with("draw ")), "the record ends with the refill's draws: {last:?}");
    let before = Caravan::action_from_id(&config, ids[ids.len() - 5]).expect("a known id").to_string();
    assert!(before.starts_with("pick "), "the 4th pick-up comes right before them: {before}");
}
