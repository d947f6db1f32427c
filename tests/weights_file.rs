//! A trained file is an agent: `learned@FILE`, `learned:T@FILE` and
//! `learned-ismcts:N@FILE` play the network of a weights file exactly as
//! `learned` and `learned-ismcts:N` play the committed one, and a bad file
//! is the weights loader's typed error naming the file.

use std::path::PathBuf;

use boardgames::caravan::{self, Caravan, CaravanConfig};
use boardgames::kit::nn::WeightsError;
use boardgames::kit::{AgentSpec, AgentSpecError, Bots, GameRng, Turn};
use boardgames::korovan::{self, Korovan, KorovanConfig};

/// A file of `bytes` in the temporary folder, unique to this test.
fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("weights-file-test-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Plays one game from `seed` in which `a` moves at every seat, asking `b`
/// too at every decision (each with the same agent stream): the number of
/// decisions if they agree throughout, else where they first differ.
fn agree<G: Bots>(config: &G::Config, a: &AgentSpec, b: &AgentSpec, seed: u64) -> Result<usize, String> {
    let (mut a, mut b) = (a.build::<G>().unwrap(), b.build::<G>().unwrap());
    let mut state = G::new_game(config).unwrap();
    let mut chance = GameRng::new(seed);
    let mut decisions = 0usize;
    loop {
        match state.turn() {
            Turn::Chance => {
                let outcome = state.sample_chance_outcome(&mut chance).unwrap();
                state.apply(outcome).unwrap();
            }
            Turn::Player(seat) => {
                let stream = seed.wrapping_mul(1_000_003).wrapping_add(decisions as u64);
                let x = a.act(&state, seat, &mut GameRng::new(stream));
                let y = b.act(&state, seat, &mut GameRng::new(stream));
                if x != y {
                    return Err(format!("decision {decisions} of the game from seed {seed}: {x:?} against {y:?}"));
                }
                state.apply(x).unwrap();
                decisions += 1;
            }
            _ => return Ok(decisions),
        }
    }
}

/// [`agree`], which must hold.
fn same_moves<G: Bots>(config: &G::Config, a: &AgentSpec, b: &AgentSpec, seed: u64) -> usize {
    agree::<G>(config, a, b, seed).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_weights_file_plays_as_the_committed_network() {
    let k = file("korovan.bgnn", korovan::WEIGHTS);
    let c = file("caravan.bgnn", caravan::WEIGHTS);
    let named = |name: &str, path: &PathBuf| -> AgentSpec { format!("{name}@{}", path.display()).parse().unwrap() };
    let korovan = KorovanConfig { players: 5, ..KorovanConfig::default() };
    let caravan = CaravanConfig { players: 2, ..CaravanConfig::default() };
    for seed in 0..3 {
        let n = same_moves::<Korovan>(&korovan, &"learned".parse().unwrap(), &named("learned", &k), seed);
        assert!(n > 10, "a whole game: {n} decisions");
        same_moves::<Korovan>(&korovan, &"learned:0.5".parse().unwrap(), &named("learned:0.5", &k), seed);
        same_moves::<Caravan>(&caravan, &"learned".parse().unwrap(), &named("learned", &c), seed);
    }
    same_moves::<Caravan>(&caravan, &"learned-ismcts:8".parse().unwrap(), &named("learned-ismcts:8", &c), 7);
    same_moves::<Korovan>(&korovan, &"learned-ismcts:8".parse().unwrap(), &named("learned-ismcts:8", &k), 7);
    // The agent answers to its whole name, file included.
    let spec = named("learned:0.5", &k);
    assert_eq!(spec.build::<Korovan>().unwrap().name(), format!("learned:0.5@{}", k.display()));
    assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap(), spec);
    std::fs::remove_file(k).unwrap();
    std::fs::remove_file(c).unwrap();
}

/// `learned` and `learned-ismcts:N` pick the network by the table's player
/// count: at a count with a network of its own (`WEIGHTS_BY_PLAYERS`) they
/// play that network's moves, elsewhere the default network's
/// (docs/learning.md, "The committed networks").
#[test]
fn learned_plays_the_network_of_the_tables_player_count() {
    assert!(!korovan::WEIGHTS_BY_PLAYERS.is_empty(), "Korovan ships networks for player counts of their own");
    let named = |name: &str, path: &PathBuf| -> AgentSpec { format!("{name}@{}", path.display()).parse().unwrap() };
    let default = file("korovan-default.bgnn", korovan::WEIGHTS);
    for &(players, bytes) in korovan::WEIGHTS_BY_PLAYERS {
        let own = file(&format!("korovan-{players}p.bgnn"), bytes);
        let config = KorovanConfig::with_players(u8::try_from(players).unwrap());
        for seed in 0..2 {
            let n = same_moves::<Korovan>(&config, &"learned".parse().unwrap(), &named("learned", &own), seed);
            assert!(n > 10, "a whole game: {n} decisions");
        }
        same_moves::<Korovan>(&config, &"learned-ismcts:8".parse().unwrap(), &named("learned-ismcts:8", &own), 7);
        // The other network plays otherwise at this count.
        let differs = (0..4)
            .any(|seed| agree::<Korovan>(&config, &named("learned", &default), &named("learned", &own), seed).is_err());
        assert!(differs, "the {players}-player network plays as the default one: the test could not tell them apart");
        std::fs::remove_file(own).unwrap();
    }
    // A count without a network of its own plays the default one.
    let counts: Vec<usize> = korovan::WEIGHTS_BY_PLAYERS.iter().map(|&(n, _)| n).collect();
    let other = (3..=9u8).find(|&n| !counts.contains(&usize::from(n))).unwrap();
    same_moves::<Korovan>(
        &KorovanConfig::with_players(other),
        &"learned".parse().unwrap(),
        &named("learned", &default),
        1,
    );
    for &(players, bytes) in caravan::WEIGHTS_BY_PLAYERS {
        let own = file(&format!("caravan-{players}p.bgnn"), bytes);
        let config = CaravanConfig { players: u8::try_from(players).unwrap(), ..CaravanConfig::default() };
        same_moves::<Caravan>(&config, &"learned".parse().unwrap(), &named("learned", &own), 0);
        std::fs::remove_file(own).unwrap();
    }
    std::fs::remove_file(default).unwrap();
}

#[test]
fn a_bad_weights_file_is_the_loaders_error_naming_the_file() {
    let missing = std::env::temp_dir().join("weights-file-test-no-such-file.bgnn");
    let spec: AgentSpec = format!("learned@{}", missing.display()).parse().unwrap();
    let err = spec.build::<Korovan>().err().expect("refused");
    assert!(matches!(err, AgentSpecError::WeightsFileUnreadable { .. }), "{err:?}");
    assert!(err.to_string().contains(&missing.display().to_string()), "{err}");

    let junk = file("junk.bgnn", b"not a network");
    let spec: AgentSpec = format!("learned-ismcts:10@{}", junk.display()).parse().unwrap();
    let err = spec.build::<Caravan>().err().expect("refused");
    assert!(
        matches!(&err, AgentSpecError::WeightsFile { error: WeightsError::Magic, .. }),
        "the loader's error: {err:?}"
    );
    assert!(err.to_string().contains(&junk.display().to_string()), "{err}");

    // Caravan's network is no Korovan network.
    let other = file("other.bgnn", caravan::WEIGHTS);
    let spec: AgentSpec = format!("learned@{}", other.display()).parse().unwrap();
    let err = spec.build::<Korovan>().err().expect("refused");
    assert!(matches!(&err, AgentSpecError::WeightsFile { error: WeightsError::Mismatch { .. }, .. }), "{err:?}");
    assert!(err.to_string().contains(&other.display().to_string()), "{err}");
    std::fs::remove_file(junk).unwrap();
    std::fs::remove_file(other).unwrap();
}

#[test]
fn names_with_a_file_parse_exactly() {
    for name in ["learned@a.bgnn", "learned:0.5@runs/x.bgnn", "learned-ismcts:20ms@n@t.bgnn", "learned-ismcts:7@/abs"] {
        let spec: AgentSpec = name.parse().unwrap();
        assert_eq!(spec.to_string(), name);
        assert!(spec.weights_file().is_some());
    }
    let spec: AgentSpec = "learned-ismcts:20ms@n@t.bgnn".parse().unwrap();
    assert_eq!(spec.weights_file().unwrap().path(), "n@t.bgnn", "everything after the first @ is the path");
    for (bad, variant) in [
        ("learned@", "NoPath"),
        ("heuristic@a.bgnn", "NotANetworkAgent"),
        ("ismcts:10@a.bgnn", "NotANetworkAgent"),
        ("learned:0@a.bgnn", "Temperature"),
        ("learned-ismcts:0@a.bgnn", "Budget"),
        ("lerned@a.bgnn", "Unknown"),
    ] {
        let err = bad.parse::<AgentSpec>().unwrap_err();
        assert!(format!("{err:?}").starts_with(variant), "{bad}: {err:?}");
        assert!(err.to_string().contains(&format!("`{bad}`")), "{bad}: the message names the whole: {err}");
    }
    // A path where a temperature goes says how a file is named.
    let err = "learned:runs/quick/latest.bgnn".parse::<AgentSpec>().unwrap_err().to_string();
    assert!(err.contains("learned@FILE"), "{err}");
    // Nothing is read until an agent is built.
    assert!("learned@/no/such/file".parse::<AgentSpec>().is_ok());
    // An engine that ships no network layout refuses a file's network.
    let nim = file("nim.bgnn", korovan::WEIGHTS);
    let spec: AgentSpec = format!("learned@{}", nim.display()).parse().unwrap();
    let err = spec.build::<boardgames::kit::testgame::HiddenNim>().err().expect("refused");
    assert!(matches!(err, AgentSpecError::NoNetwork { .. }), "{err:?}");
    std::fs::remove_file(nim).unwrap();
}
