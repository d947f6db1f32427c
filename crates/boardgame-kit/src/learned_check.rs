//! [`check_learned`]: what an engine that ships a network promises, checked
//! on its committed weights in one call from its tests. (Its own module:
//! it stands on `nn`, `bots` and `conformance`, and `bots` on `nn`.)

use std::sync::Arc;

use crate::conformance::{ConformanceError, check_agent};
use crate::nn::{LearnedAgent, NetGame, Network, WeightsError, read_network};
use crate::{Agent, AgentSpec, Bots, Game, GameRng, RandomAgent, Turn, decision_positions};

/// What [`check_learned`] checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LearnedReport {
    /// Configurations the weights were read and fitted for.
    pub configs: usize,
    /// Damaged or foreign copies of the weights refused with the right
    /// [`WeightsError`].
    pub refused: usize,
    /// Agent names built and played (`learned`, `learned:0.5`,
    /// `learned-ismcts:20`).
    pub names: usize,
    /// Decisions of the learned agents checked by
    /// [`check_agent`](crate::conformance::check_agent).
    pub decisions: usize,
}

/// Checks an engine's networks for player counts of their own
/// (`by_players`, `(players, weights)` each, the engine's
/// `WEIGHTS_BY_PLAYERS`) beside its default `weights`: together at most
/// 2,000,000 bytes; each passes [`check_learned`] at its count
/// (`config_of(players)`), where the learned agents by name play it; and
/// each file's text names the count it was trained at (`"players": N`).
/// Returns the decisions checked.
///
/// # Errors
/// The first broken promise, as [`check_learned`]'s.
pub fn check_player_networks<G: NetGame + Bots>(
    weights: &[u8],
    by_players: &[(usize, &[u8])],
    config_of: impl Fn(usize) -> G::Config,
) -> Result<usize, ConformanceError> {
    let fail = |message: String| ConformanceError { seed: 0, step: 0, message };
    let total = weights.len() + by_players.iter().map(|(_, b)| b.len()).sum::<usize>();
    if total > 2_000_000 {
        return Err(fail(format!("the networks of {} take {total} bytes, more than 2,000,000", G::NAME)));
    }
    let mut decisions = 0;
    for &(players, bytes) in by_players {
        let config = config_of(players);
        decisions += check_learned::<G>(bytes, std::slice::from_ref(&config))?.decisions;
        let net = read_network::<G>(bytes, &config).map_err(|e| fail(format!("{players} players: {e}")))?;
        if !net.text().contains(&format!("\"players\": {players}")) {
            return Err(fail(format!("the {players}-player network's text does not name its count: {}", net.text())));
        }
    }
    Ok(decisions)
}

/// Checks an engine's shipped network and its learned agents:
///
/// * `weights` read and fit `G` ([`read_network`]) for every one of
///   `configs`;
/// * a copy with a flipped byte is refused (`Checksum` or `NonFinite`), a
///   truncated one (`Truncated`), one that is not a network (`Magic`), a
///   network of another game or with a narrower policy head (`Mismatch`,
///   saying which);
/// * [`Bots::learned_agent`] and [`Bots::learned_search_agent`] exist, and
///   `learned`, `learned:0.5` and `learned-ismcts:20` build by name, keep
///   their names as arena entrants and play a legal first move;
/// * on the first and the last of `configs`, `learned` (greedy) and
///   `learned:1` (sampled) pass [`check_agent`] with decisions from the
///   seat's observation alone, and `learned-ismcts:8` passes it and writes
///   its visit shares as its policy;
/// * `learned-ismcts:8` by name plays what [`Bots::learned_search_with`]
///   over the weights plays ([`same_decisions`]) on the first of `configs`
///   (a player count at which the name plays these weights: not one with a
///   network of its own), so a trained file is measured with the search the
///   name plays.
///
/// # Errors
/// The first broken promise; weights and naming faults carry seed 0 and
/// step 0, the agent checks their own seed and step.
pub fn check_learned<G: NetGame + Bots>(
    weights: &[u8],
    configs: &[G::Config],
) -> Result<LearnedReport, ConformanceError> {
    let fail = |message: String| ConformanceError { seed: 0, step: 0, message };
    let (Some(first), Some(last)) = (configs.first(), configs.last()) else {
        return Err(fail("no configuration to check".into()));
    };
    let mut report = LearnedReport::default();
    let fit = |config: &G::Config| {
        read_network::<G>(weights, config).map_err(|e| fail(format!("the weights do not fit {}: {e}", G::NAME)))
    };
    // the first config's network serves the comparison with `learned_search_with` below
    let net = fit(first)?;
    report.configs += 1;
    for config in &configs[1..] {
        fit(config)?;
        report.configs += 1;
    }

    let mut refuse =
        |what: &str, result: Result<Network, WeightsError>, ok: &dyn Fn(&WeightsError) -> bool| match result {
            Err(e) if ok(&e) => {
                report.refused += 1;
                Ok(())
            }
            Err(e) => Err(fail(format!("{what}: the wrong error, {e}"))),
            Ok(_) => Err(fail(format!("{what} was read as a network"))),
        };
    let mut flipped = weights.to_vec();
    if let Some(b) = flipped.get_mut(weights.len() / 2) {
        *b ^= 0x10;
    }
    refuse("a copy with a flipped byte", Network::from_bytes(&flipped), &|e| {
        matches!(e, WeightsError::Checksum { .. } | WeightsError::NonFinite { .. })
    })?;
    let cut = &weights[..weights.len().saturating_sub(3)];
    refuse("a truncated copy", Network::from_bytes(cut), &|e| matches!(e, WeightsError::Truncated { .. }))?;
    refuse("a file that is no network", Network::from_bytes(b"not a network"), &|e| matches!(e, WeightsError::Magic))?;

    let obs = G::input_len(first);
    let other = format!("not-{}", G::NAME);
    let mismatch = |net: Result<Network, WeightsError>, says: &str| -> Result<(), ConformanceError> {
        let net = net.map_err(|e| fail(format!("a test network cannot be built: {e}")))?;
        match LearnedAgent::<G>::new(Arc::new(net), 0.0) {
            Err(e @ WeightsError::Mismatch { .. }) if e.to_string().contains(says) => Ok(()),
            Err(e) => Err(fail(format!("a mismatched network: the wrong error, {e} (expected one saying {says:?})"))),
            Ok(_) => Err(fail(format!("a mismatched network ({says}) was accepted"))),
        }
    };
    mismatch(
        Network::new_random(&other, obs, &[4], G::POLICY_LEN, G::VALUE_LEN, 1),
        &format!("trained for `{other}`"),
    )?;
    report.refused += 1;
    mismatch(
        Network::new_random(G::NAME, obs, &[4], G::POLICY_LEN.saturating_sub(1), G::VALUE_LEN, 1),
        "its policy has",
    )?;
    report.refused += 1;

    let exported = G::learned_agent(0.0).is_some() && G::learned_search_agent(crate::Budget::Iterations(1)).is_some();
    if !exported {
        return Err(fail(format!("{} exports no learned agent through Bots", G::NAME)));
    }
    for name in ["learned", "learned:0.5", "learned-ismcts:20"] {
        let spec: AgentSpec = name.parse().map_err(|e| fail(format!("`{name}`: {e}")))?;
        let mut agent = spec.build::<G>().map_err(|e| fail(format!("`{name}`: {e}")))?;
        let entrant = spec.entrant::<G>().map_err(|e| fail(format!("`{name}`: {e}")))?;
        if entrant.name != name {
            return Err(fail(format!("`{name}` enters the arena as `{}`", entrant.name)));
        }
        let mut state = G::new_game(first).map_err(|e| fail(format!("the config is refused: {e}")))?;
        let mut rng = GameRng::new(5);
        while let Turn::Chance = state.turn() {
            let a =
                state.sample_chance_outcome(&mut rng).ok_or_else(|| fail("a chance node without outcomes".into()))?;
            state.apply_unchecked(a);
        }
        let Turn::Player(seat) = state.turn() else {
            return Err(fail("the game ends before its first decision".into()));
        };
        if !state.is_legal(agent.act(&state, seat, &mut rng)) {
            return Err(fail(format!("`{name}` chose an illegal first move")));
        }
        report.names += 1;
    }

    // Each name is built once here, so that the makers below cannot fail:
    // a build is deterministic, and their fallback is never reached.
    let maker = |name: &str| {
        let spec: AgentSpec = name.parse().map_err(|e| fail(format!("`{name}`: {e}")))?;
        spec.build::<G>().map_err(|e| fail(format!("`{name}`: {e}")))?;
        Ok::<_, ConformanceError>(move || spec.build::<G>().unwrap_or_else(|_| Box::new(crate::RandomAgent)))
    };
    let (greedy, sampled, search) = (maker("learned")?, maker("learned:1")?, maker("learned-ismcts:8")?);
    let ends: &[&G::Config] = if configs.len() > 1 { &[first, last] } else { &[first] };
    for config in ends {
        let r = check_agent::<G>(config, &greedy, 3, 1, true)?;
        if r.policies != r.decisions || r.determinized != r.decisions {
            return Err(fail(format!(
                "`learned` wrote {} policies and replayed {} determinizations for {} decisions",
                r.policies, r.determinized, r.decisions
            )));
        }
        report.decisions += r.decisions;
        report.decisions += check_agent::<G>(config, &sampled, 2, 2, true)?.decisions;
    }
    let r = check_agent::<G>(first, &search, 1, 3, false)?;
    if r.policies == 0 {
        return Err(fail("`learned-ismcts:8` wrote no visit shares as its policy".into()));
    }
    report.decisions += r.decisions;
    let mut with = G::learned_search_with(net, crate::Budget::Iterations(8)).map_err(|e| fail(e.to_string()))?;
    same_decisions::<G>(&mut *search(), &mut *with, first, 2, 11)
        .map_err(|e| fail(format!("`learned-ismcts:8` and `learned_search_with` differ: {e}")))?;
    Ok(report)
}

/// Whether agents `a` and `b` choose alike: at every decision of `games`
/// games of `config` played by random moves ([`decision_positions`], game
/// `g` from `GameRng::new(g)`, `g` in `seed..`) both are asked, each with a
/// generator seeded by the decision's number, and must choose the same
/// action. Returns the decisions compared.
///
/// # Errors
/// A message naming the first decision where they differ, or a config
/// the engine refuses.
pub fn same_decisions<G: Game>(
    a: &mut dyn Agent<G>,
    b: &mut dyn Agent<G>,
    config: &G::Config,
    games: u64,
    seed: u64,
) -> Result<usize, String> {
    let start = G::new_game(config).map_err(|e| format!("the config is refused: {e}"))?;
    let mut randoms = vec![RandomAgent; start.num_players()];
    let mut walkers: Vec<&mut dyn Agent<G>> = randoms.iter_mut().map(|r| r as &mut dyn Agent<G>).collect();
    let mut decisions = 0usize;
    for game in seed..seed.saturating_add(games) {
        let positions = decision_positions(start.clone(), &mut walkers, &mut GameRng::new(game), 1, usize::MAX)
            .map_err(|e| format!("game {game}: {e}"))?;
        for (state, seat) in &positions {
            let n = decisions as u64;
            let (x, y) = (a.act(state, *seat, &mut GameRng::new(n)), b.act(state, *seat, &mut GameRng::new(n)));
            if x != y {
                return Err(format!("game {game}, decision {decisions}: {x:?} against {y:?}"));
            }
            decisions += 1;
        }
    }
    Ok(decisions)
}

/// The outputs a golden test pins for `net`: for each of two inputs the
/// first four policy logits, then the first three value logits (14 values).
/// The inputs are a synthetic one (entry `i` is `((i · 37) mod 11) / 10`)
/// and the network input of `state` for its seat to move, once its chance
/// nodes are played from `GameRng::new(seed)`. An engine's test compares
/// them to values it pins, so that any change to the forward pass, the
/// weights or the input layout fails it.
///
/// # Errors
/// A message when the game ends before a decision, the input cannot be
/// written, or `net` has fewer than four policy or three value outputs.
pub fn golden_outputs<G: NetGame>(net: &Network, mut state: G, seed: u64) -> Result<Vec<f32>, String> {
    if net.policy_len() < 4 || net.value_len() < 3 {
        return Err("the network has fewer than 4 policy or 3 value outputs".into());
    }
    let len = net.obs_len();
    let synthetic: Vec<f32> = (0..len).map(|i| ((i * 37) % 11) as f32 / 10.0).collect();
    let mut rng = GameRng::new(seed);
    while state.turn() == Turn::Chance {
        let a = state.sample_chance_outcome(&mut rng).ok_or("a chance node without outcomes")?;
        state.apply_unchecked(a);
    }
    let Turn::Player(seat) = state.turn() else {
        return Err("the game ended before a decision".into());
    };
    let mut from_state = vec![0.0f32; len];
    if !state.write_input(seat, &mut from_state) {
        return Err(format!("the network input of seat {seat} cannot be written"));
    }
    let mut scratch = net.scratch();
    let mut out = vec![0.0f32; net.outputs()];
    let mut got = Vec::with_capacity(14);
    for input in [&synthetic, &from_state] {
        net.forward(input, &mut scratch, &mut out).map_err(|e| e.to_string())?;
        got.extend_from_slice(&out[..4]);
        got.extend_from_slice(&out[net.policy_len()..net.policy_len() + 3]);
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgame::HiddenNim;

    fn nim_weights(game: &str) -> Vec<u8> {
        let len = HiddenNim::input_len(&Default::default());
        Network::new_random(game, len, &[4], HiddenNim::POLICY_LEN, HiddenNim::VALUE_LEN, 3).unwrap().to_bytes()
    }

    /// Each early promise, broken, is the error that names it (the engines'
    /// tests run the whole check on their committed weights).
    #[test]
    fn broken_promises_are_named() {
        let config = Default::default();
        let err = check_learned::<HiddenNim>(&nim_weights("hidden-nim"), &[]).unwrap_err();
        assert!(err.message.contains("no configuration"), "{err}");
        let err = check_learned::<HiddenNim>(&nim_weights("chess"), &[config]).unwrap_err();
        assert!(err.message.contains("do not fit hidden-nim") && err.message.contains("`chess`"), "{err}");
        let err = check_learned::<HiddenNim>(b"BGNN", &[config]).unwrap_err();
        assert!(err.message.contains("do not fit"), "{err}");
        // The test game's weights pass every weights check; it ships no
        // learned agent, which is the next promise.
        let err = check_learned::<HiddenNim>(&nim_weights("hidden-nim"), &[config]).unwrap_err();
        assert!(err.message.contains("hidden-nim exports no learned agent"), "{err}");
    }

    /// The golden outputs need four policy and three value outputs; the
    /// test game's two-seat value head is refused with a message.
    #[test]
    fn golden_outputs_need_the_pinned_widths() {
        let net = Network::from_bytes(&nim_weights("hidden-nim")).unwrap();
        let state = <HiddenNim as crate::Game>::new_game(&Default::default()).unwrap();
        let err = golden_outputs::<HiddenNim>(&net, state, 1).unwrap_err();
        assert!(err.contains("fewer than 4 policy or 3 value"), "{err}");
    }
}
