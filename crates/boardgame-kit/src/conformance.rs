//! The conformance suite: the checks every engine runs against itself in one
//! call, so that the generic tools can trust it.
//!
//! [`check`] plays random games (uniform decisions, chance by its weights)
//! and, at every state, checks:
//!
//! * **turn and lists agree** — a player's turn lists at least one action, a
//!   chance node lists outcomes with positive weights whose actions are
//!   exactly the legal actions, a terminal state lists none and has an
//!   outcome (and only a terminal state has one);
//! * **legal list vs validation** — every listed action validates and
//!   applies; every id of the action space whose action is not listed is
//!   rejected by `validate` and `apply`, and a rejected `apply` leaves the
//!   state unchanged (all ids on sweep states, a random sample elsewhere);
//! * **codec** — `action_from_id(action_id(a)) == a`, ids in range, ids past
//!   the end rejected, `Display` then `FromStr` gives the action back;
//! * **observations** — every seat's observation and tensor can be written,
//!   the tensor lies within [`Game::observation_tensor_bounds`] where the
//!   game states them, a bad seat and a wrong-length buffer are errors;
//! * **determinization** — for every seat, the determinized state gives that
//!   seat the same observation and tensor, and, when it is that seat's turn,
//!   the same legal actions;
//! * **termination** — the game ends within `max_game_length`; applying
//!   anything after the end is rejected;
//! * **records** — the game's record survives JSON, replays to the identical
//!   final state, and a record cut short or with an unknown id fails naming
//!   the right step; the config survives JSON.
//!
//! ```
//! use boardgame_kit::{conformance, testgame::HiddenNim};
//! conformance::check::<HiddenNim>(&Default::default(), 20, 1).unwrap();
//! ```

use crate::{ActionBuffer, ActionId, Game, GameRecord, GameRng, RecordError, Turn, Viewer, sample_chance};

/// Options of the suite; [`check`] uses the defaults.
#[derive(Clone, Debug)]
pub struct Options {
    /// Games to play.
    pub games: usize,
    /// The first game's seed; game `i` uses `seed + i`.
    pub seed: u64,
    /// Every `sweep_every`-th state checks every id of the action space; the
    /// others check `sample_ids` random ids. 1 sweeps every state.
    pub sweep_every: usize,
    /// Random ids checked on non-sweep states.
    pub sample_ids: usize,
    /// Determinize every `determinize_every`-th state (for every seat).
    pub determinize_every: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { games: 20, seed: 0, sweep_every: 16, sample_ids: 32, determinize_every: 1 }
    }
}

/// What the suite covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConformanceReport {
    /// Games played to the end.
    pub games: usize,
    /// States checked.
    pub states: usize,
    /// Chance nodes met.
    pub chance_nodes: usize,
    /// Legal actions checked (validated and applied).
    pub legal_checked: usize,
    /// Illegal ids checked (rejected, state unchanged).
    pub illegal_checked: usize,
    /// Determinizations checked.
    pub determinizations: usize,
    /// Longest game in actions.
    pub longest_game: usize,
}

/// A broken promise of the contract, located by game seed and step.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("conformance failure in game seed {seed} at step {step}: {message}")]
pub struct ConformanceError {
    /// The game's seed.
    pub seed: u64,
    /// The step (actions played before the failing check).
    pub step: usize,
    /// What went wrong.
    pub message: String,
}

/// Runs the suite for `games` random games from `seed` with default options.
///
/// # Errors
/// The first [`ConformanceError`] found.
pub fn check<G: Game>(config: &G::Config, games: usize, seed: u64) -> Result<ConformanceReport, ConformanceError> {
    check_with::<G>(config, &Options { games, seed, ..Options::default() })
}

/// Runs the suite with `options`.
///
/// # Errors
/// The first [`ConformanceError`] found.
pub fn check_with<G: Game>(config: &G::Config, options: &Options) -> Result<ConformanceReport, ConformanceError> {
    let mut report = ConformanceReport::default();
    let fail = |seed: u64, step: usize, message: String| ConformanceError { seed, step, message };
    // the config survives JSON
    let json =
        serde_json::to_string(config).map_err(|e| fail(options.seed, 0, format!("config does not serialize: {e}")))?;
    let back: G::Config =
        serde_json::from_str(&json).map_err(|e| fail(options.seed, 0, format!("config does not deserialize: {e}")))?;
    if &back != config {
        return Err(fail(options.seed, 0, format!("config JSON round trip changed it: {json}")));
    }
    let n_ids = G::num_distinct_actions(config);
    let bound = G::max_game_length(config);
    let tensor_len = G::observation_tensor_len(config);
    if tensor_len != G::observation_tensor_shape(config).iter().product::<usize>() {
        return Err(fail(options.seed, 0, "tensor length is not the product of its shape".into()));
    }
    let bounds = G::observation_tensor_bounds(config);
    if let Some((low, high)) = &bounds {
        if low.len() != tensor_len || high.len() != tensor_len {
            return Err(fail(options.seed, 0, "tensor bounds are not of the tensor's length".into()));
        }
        if let Some(i) = (0..tensor_len).find(|&i| low[i].partial_cmp(&high[i]).is_none_or(|o| o.is_gt())) {
            return Err(fail(options.seed, 0, format!("tensor bounds of entry {i} are empty")));
        }
    }
    for g in 0..options.games {
        let seed = options.seed.wrapping_add(g as u64);
        let mut state = G::new_game(config).map_err(|e| fail(seed, 0, format!("config does not validate: {e}")))?;
        let n = state.num_players();
        let mut rng = GameRng::new(seed);
        let mut det_rng = rng.child(7);
        let mut list = G::ActionList::default();
        let mut chances = G::ChanceList::default();
        let mut tensor = vec![0f32; tensor_len];
        let mut tensor2 = vec![0f32; tensor_len];
        let mut ids: Vec<ActionId> = Vec::new();
        let mut step = 0usize;
        loop {
            report.states += 1;
            let turn = state.turn();
            state.legal_actions(&mut list);
            state.chance_outcomes(&mut chances);
            let err = |m: String| fail(seed, step, m);
            // turn and lists agree
            match turn {
                Turn::Player(p) => {
                    if p >= n {
                        return Err(err(format!("turn names seat {p} of {n}")));
                    }
                    if list.is_empty() {
                        return Err(err("a player's turn with no legal action".into()));
                    }
                    if !chances.is_empty() {
                        return Err(err("chance outcomes listed at a player's turn".into()));
                    }
                }
                Turn::Chance => {
                    report.chance_nodes += 1;
                    if chances.is_empty() || chances.iter().any(|o| o.weight == 0) {
                        return Err(err("a chance node without outcomes or with a zero weight".into()));
                    }
                    let same = chances.len() == list.len() && chances.iter().all(|o| list.contains(&o.action));
                    if !same {
                        return Err(err("chance outcomes differ from the legal actions".into()));
                    }
                    let total: f64 = chances.iter().map(|o| o.probability(&chances)).sum();
                    if (total - 1.0).abs() > 1e-9 {
                        return Err(err(format!("chance probabilities sum to {total}")));
                    }
                }
                Turn::Terminal => {
                    if !list.is_empty() || !chances.is_empty() {
                        return Err(err("a terminal state lists actions".into()));
                    }
                }
            }
            if (turn == Turn::Terminal) != state.outcome().is_some() {
                return Err(err("outcome() is Some exactly when terminal is broken".into()));
            }
            if list.len() > list.capacity() {
                return Err(err("list over capacity".into()));
            }
            // legal actions: codec, notation, validate, apply
            for (i, &a) in list.iter().enumerate() {
                if list[..i].contains(&a) {
                    return Err(err(format!("action {a} listed twice")));
                }
                let id = G::action_id(config, a);
                if id as usize >= n_ids {
                    return Err(err(format!("action {a} has id {id} outside 0..{n_ids}")));
                }
                match G::action_from_id(config, id) {
                    Ok(b) if b == a => {}
                    other => return Err(err(format!("id {id} of {a} decodes to {other:?}"))),
                }
                let text = a.to_string();
                match text.parse::<G::Action>() {
                    Ok(b) if b == a => {}
                    Ok(b) => return Err(err(format!("notation {text:?} of {a:?} parses as {b:?}"))),
                    Err(e) => return Err(err(format!("notation {text:?} of {a:?} does not parse: {e}"))),
                }
                if let Err(e) = state.validate(a) {
                    return Err(err(format!("listed action {a} fails validation: {e}")));
                }
                let mut child = state.clone();
                if let Err(e) = child.apply(a) {
                    return Err(err(format!("listed action {a} fails to apply: {e}")));
                }
                let mut fast = state.clone();
                fast.apply_unchecked(a);
                if fast != child {
                    return Err(err(format!("apply and apply_unchecked of {a} disagree")));
                }
                report.legal_checked += 1;
            }
            // illegal ids are rejected and leave the state unchanged
            let sweep = step.is_multiple_of(options.sweep_every.max(1)) || turn == Turn::Terminal;
            let count = if sweep { n_ids } else { options.sample_ids.min(n_ids) };
            for k in 0..count {
                let id = if sweep { k as ActionId } else { rng.below(n_ids as u32) };
                let a = match G::action_from_id(config, id) {
                    Ok(a) => a,
                    Err(e) => return Err(err(format!("id {id} below num_distinct_actions does not decode: {e}"))),
                };
                if G::action_id(config, a) != id {
                    return Err(err(format!("id {id} decodes to {a}, whose id is {}", G::action_id(config, a))));
                }
                if list.contains(&a) {
                    continue;
                }
                if state.validate(a).is_ok() {
                    return Err(err(format!("unlisted action {a} (id {id}) validates")));
                }
                let mut copy = state.clone();
                if copy.apply(a).is_ok() {
                    return Err(err(format!("unlisted action {a} (id {id}) applies")));
                }
                if copy != state {
                    return Err(err(format!("rejected action {a} changed the state")));
                }
                report.illegal_checked += 1;
            }
            if G::action_from_id(config, n_ids as ActionId).is_ok() || G::action_from_id(config, ActionId::MAX).is_ok()
            {
                return Err(err("ids past the action space decode".into()));
            }
            // the fast random draws are exactly the listed ones
            for k in 0..4u32 {
                let mut fast = GameRng::new(u64::from(k) ^ step as u64);
                let mut slow = fast.clone();
                let (drawn, expected) = match turn {
                    Turn::Chance => {
                        let mut buf = G::ChanceList::default();
                        (state.sample_chance_outcome(&mut fast), sample_chance(&state, &mut slow, &mut buf))
                    }
                    _ => (state.random_legal_action(&mut fast), list.get(slow.index(list.len())).copied()),
                };
                if drawn != expected || fast != slow {
                    return Err(err(format!(
                        "the engine's random draw gives {drawn:?}, the listed draw {expected:?} (or other draws)"
                    )));
                }
            }
            // observations
            for seat in 0..n {
                if let Err(e) = state.observation(seat) {
                    return Err(err(format!("observation of seat {seat} fails: {e}")));
                }
                if let Err(e) = state.write_observation_tensor(seat, &mut tensor) {
                    return Err(err(format!("tensor of seat {seat} fails: {e}")));
                }
                if let Some((low, high)) = &bounds
                    && let Some(i) = (0..tensor_len).find(|&i| !(low[i]..=high[i]).contains(&tensor[i]))
                {
                    return Err(err(format!(
                        "tensor entry {i} of seat {seat} is {}, outside its bounds [{}, {}]",
                        tensor[i], low[i], high[i]
                    )));
                }
            }
            // what a seat sees of an action agrees with its observations:
            // the actions hidden from a seat all look alike to it, and what a
            // spectator sees every seat sees
            for &a in list.iter() {
                let public = state.view_action(Viewer::Spectator, a);
                if public.is_some_and(|b| b != a) {
                    return Err(err(format!("view_action of {a} for a spectator shows another action")));
                }
                for seat in 0..n {
                    let seen = state.view_action(Viewer::Seat(seat), a);
                    if seen.is_some_and(|b| b != a) {
                        return Err(err(format!("view_action of {a} for seat {seat} shows another action")));
                    }
                    if public.is_some() && seen.is_none() {
                        return Err(err(format!("{a} is shown to spectators but hidden from seat {seat}")));
                    }
                }
            }
            // a public observation (if the game has one) cannot tell apart
            // the actions hidden from spectators, nor a seat's observation
            // the actions hidden from that seat
            hidden_alike(&state, &list, Viewer::Spectator, "public observations", |child: &G, _| {
                Ok(child.public_observation())
            })
            .map_err(err)?;
            for seat in 0..n {
                hidden_alike(&state, &list, Viewer::Seat(seat), "observations", |child, a| {
                    child.observation(seat).map_err(|_| format!("observation of seat {seat} fails after {a}"))
                })
                .map_err(err)?;
            }
            if state.observation(n).is_ok() || state.write_observation_tensor(n, &mut tensor).is_ok() {
                return Err(err(format!("seat {n} of a {n}-seat game is accepted")));
            }
            if tensor_len > 0 && state.write_observation_tensor(0, &mut tensor[1..]).is_ok() {
                return Err(err("a tensor buffer of the wrong length is accepted".into()));
            }
            if state.determinize(n, &mut det_rng).is_ok() {
                return Err(err(format!("determinize for seat {n} of a {n}-seat game is accepted")));
            }
            // determinization keeps the observer's view
            if step.is_multiple_of(options.determinize_every.max(1)) {
                for seat in 0..n {
                    let det = match state.determinize(seat, &mut det_rng) {
                        Ok(d) => d,
                        Err(e) => return Err(err(format!("determinize for seat {seat} fails: {e}"))),
                    };
                    let (a, b) = (state.observation(seat).ok(), det.observation(seat).ok());
                    if a != b {
                        return Err(err(format!("determinize changed seat {seat}'s observation: {a:?} vs {b:?}")));
                    }
                    let _ = state.write_observation_tensor(seat, &mut tensor);
                    let _ = det.write_observation_tensor(seat, &mut tensor2);
                    if tensor != tensor2 {
                        return Err(err(format!("determinize changed seat {seat}'s tensor")));
                    }
                    if det.turn() != turn {
                        return Err(err(format!("determinize for seat {seat} changed whose turn it is")));
                    }
                    if turn == Turn::Player(seat) {
                        let mut dl = G::ActionList::default();
                        det.legal_actions(&mut dl);
                        if dl.len() != list.len() || dl.iter().any(|a| !list.contains(a)) {
                            return Err(err(format!("determinize for seat {seat} changed its legal actions")));
                        }
                    }
                    report.determinizations += 1;
                }
            }
            // next action
            let action = match turn {
                Turn::Terminal => break,
                Turn::Chance => match sample_chance(&state, &mut rng, &mut chances) {
                    Some(a) => a,
                    None => return Err(err("sampling a chance node failed".into())),
                },
                Turn::Player(_) => list[rng.index(list.len())],
            };
            if step >= bound {
                return Err(err(format!("the game did not end within max_game_length = {bound}")));
            }
            ids.push(G::action_id(config, action));
            state.apply_unchecked(action);
            step += 1;
        }
        report.games += 1;
        report.longest_game = report.longest_game.max(step);
        check_record::<G>(config, seed, &state, &ids)?;
    }
    Ok(report)
}

/// The actions of `list` that `viewer` cannot see must all lead to one
/// `view` (`what`, in the message) of the state after them; `Err` names the
/// first two that do not, or says why `view` failed.
fn hidden_alike<G: Game, T: PartialEq>(
    state: &G,
    list: &[G::Action],
    viewer: Viewer,
    what: &str,
    mut view: impl FnMut(&G, G::Action) -> Result<T, String>,
) -> Result<(), String> {
    let mut first: Option<(G::Action, T)> = None;
    for &a in list.iter().filter(|&&a| state.view_action(viewer, a).is_none()) {
        let mut child = state.clone();
        child.apply_unchecked(a);
        let seen = view(&child, a)?;
        match &first {
            None => first = Some((a, seen)),
            Some((b, v)) if *v != seen => {
                let who = match viewer {
                    Viewer::Seat(seat) => format!("seat {seat}"),
                    _ => "spectators".to_string(),
                };
                return Err(format!("{a} and {b} are both hidden from {who} but lead to different {what}"));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn check_record<G: Game>(config: &G::Config, seed: u64, end: &G, ids: &[ActionId]) -> Result<(), ConformanceError> {
    let fail = |step: usize, message: String| ConformanceError { seed, step, message };
    let mut record = GameRecord::new::<G>(config.clone(), Some(seed));
    record.actions = ids.to_vec();
    let json = record.to_json();
    let back =
        GameRecord::<G::Config>::from_json::<G>(&json).map_err(|e| fail(ids.len(), format!("record JSON: {e}")))?;
    let replayed =
        back.replay::<G>().map_err(|e| fail(ids.len(), format!("replay of the game's record fails: {e}")))?;
    if &replayed != end {
        return Err(fail(ids.len(), "replay does not rebuild the identical state".into()));
    }
    // one action past the end is illegal, naming that step
    let mut extended = record.clone();
    extended.actions.push(ids.first().copied().unwrap_or(0));
    match extended.replay::<G>() {
        Err(RecordError::IllegalAction { step, .. }) if step == ids.len() => {}
        other => return Err(fail(ids.len(), format!("an action after the end gives {:?}", other.map(|_| ())))),
    }
    // an unknown id in the middle names its step
    if !ids.is_empty() {
        let k = ids.len() / 2;
        let mut broken = record.clone();
        broken.actions[k] = G::num_distinct_actions(config) as ActionId;
        match broken.replay::<G>() {
            Err(RecordError::UnknownAction { step, .. }) if step == k => {}
            other => return Err(fail(k, format!("an unknown id at step {k} gives {:?}", other.map(|_| ())))),
        }
    }
    Ok(())
}

/// Drives a game by arbitrary bytes through the **checked** API — the body of
/// the fuzz targets and of their proptest twins.
///
/// Each byte pair is one step. If the first byte's high bit is set, the step
/// plays a listed legal action (or chance outcome) chosen by the pair;
/// otherwise the pair is taken as a raw action id (possibly past the action
/// space) and applied with [`Game::apply`]. After every step: a rejected id
/// or action left the state unchanged, `turn`/`outcome`/lists agree, every
/// seat's observation and tensor can be written, and `invariant` holds.
/// Returns the number of actions applied.
///
/// # Errors
/// The first broken promise, as a [`ConformanceError`] (seed 0, the step).
pub fn check_action_bytes<G: Game>(
    config: &G::Config,
    bytes: &[u8],
    invariant: impl Fn(&G) -> Result<(), String>,
) -> Result<usize, ConformanceError> {
    let fail = |step: usize, message: String| ConformanceError { seed: 0, step, message };
    let Ok(mut state) = G::new_game(config) else { return Ok(0) };
    let n_ids = G::num_distinct_actions(config);
    let mut tensor = vec![0f32; G::observation_tensor_len(config)];
    let mut list = G::ActionList::default();
    let mut applied = 0usize;
    invariant(&state).map_err(|m| fail(0, m))?;
    for (step, pair) in bytes.chunks_exact(2).enumerate() {
        let word = u16::from_le_bytes([pair[0], pair[1]]);
        state.legal_actions(&mut list);
        let action = if pair[1] & 0x80 != 0 {
            if list.is_empty() {
                continue;
            }
            list[usize::from(word & 0x7fff) % list.len()]
        } else {
            let id = u32::from(word & 0x7fff) % (n_ids as u32 + 8).max(1);
            match G::action_from_id(config, id) {
                Ok(a) => a,
                Err(_) if id as usize >= n_ids => continue,
                Err(e) => return Err(fail(step, format!("id {id} inside the action space fails to decode: {e}"))),
            }
        };
        let before = state.clone();
        let listed = list.contains(&action);
        match state.apply(action) {
            Ok(()) => {
                applied += 1;
                if !listed {
                    return Err(fail(step, format!("unlisted action {action} was applied")));
                }
            }
            Err(e) => {
                if state != before {
                    return Err(fail(step, format!("rejected action {action} ({e}) changed the state")));
                }
                if listed {
                    return Err(fail(step, format!("listed action {action} was rejected: {e}")));
                }
            }
        }
        if (state.turn() == Turn::Terminal) != state.outcome().is_some() {
            return Err(fail(step, "outcome() is Some exactly when terminal is broken".into()));
        }
        state.legal_actions(&mut list);
        if matches!(state.turn(), Turn::Player(_) | Turn::Chance) == list.is_empty() {
            return Err(fail(step, "a live state without legal actions, or a terminal one with some".into()));
        }
        for seat in 0..state.num_players() {
            if state.observation(seat).is_err() || state.write_observation_tensor(seat, &mut tensor).is_err() {
                return Err(fail(step, format!("observation of seat {seat} fails")));
            }
        }
        invariant(&state).map_err(|m| fail(step, m))?;
    }
    Ok(applied)
}

/// What [`check_agent`] covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentReport {
    /// Games played to the end, the agent at every seat.
    pub games: usize,
    /// Decisions checked.
    pub decisions: usize,
    /// Decisions whose [`Agent::policy`](crate::Agent::policy) was checked
    /// (it wrote a distribution).
    pub policies: usize,
    /// Decisions replayed from a determinization of the state (same
    /// observation, other hidden part) with the same stream.
    pub determinized: usize,
}

/// Checks the [`Agent`](crate::Agent) contract for the agents `make` builds,
/// over `games` games from `seed` with one agent per seat (chance from the
/// seed's stream 0, seat `s` from stream `1 + s`):
///
/// * every action is legal;
/// * [`Agent::policy`](crate::Agent::policy), when it writes anything,
///   writes legal actions with positive probabilities summing to 1;
/// * a fresh agent with the same streams plays the same game (determinism,
///   and [`Agent::reset`](crate::Agent::reset) between games);
/// * with `observation_only`: at every decision a fresh agent given a
///   determinization of the state for the acting seat (the same observation,
///   other hidden cards) and a copy of the stream chooses the same action —
///   the agent decides from what the seat may know. (Search agents, which
///   draw their own determinizations from the stream, pass `false`.)
///
/// # Errors
/// The first broken promise, located by seed and step.
pub fn check_agent<G: Game>(
    config: &G::Config,
    make: &dyn Fn() -> Box<dyn crate::Agent<G>>,
    games: usize,
    seed: u64,
    observation_only: bool,
) -> Result<AgentReport, ConformanceError> {
    let mut report = AgentReport::default();
    let fail = |seed, step, message: String| ConformanceError { seed, step, message };
    let n = G::new_game(config).map_err(|e| fail(seed, 0, format!("the config is refused: {e}")))?.num_players();
    let mut agents: Vec<Box<dyn crate::Agent<G>>> = (0..n).map(|_| make()).collect();
    for g in 0..games {
        let game_seed = seed.wrapping_add(g as u64);
        let play = |agents: &mut [Box<dyn crate::Agent<G>>], report: &mut AgentReport, checks: bool| {
            let mut state = G::new_game(config).map_err(|e| fail(game_seed, 0, e.to_string()))?;
            let root = GameRng::new(game_seed);
            let mut chance = root.child(0);
            let mut rngs: Vec<GameRng> = (0..n).map(|s| root.child(1 + s as u32)).collect();
            let mut chances = G::ChanceList::default();
            let mut ids = Vec::new();
            agents.iter_mut().for_each(|a| a.reset());
            for step in 0..G::max_game_length(config) {
                let action = match state.turn() {
                    Turn::Terminal => return Ok(ids),
                    Turn::Chance => sample_chance(&state, &mut chance, &mut chances)
                        .ok_or_else(|| fail(game_seed, step, "a chance node without outcomes".into()))?,
                    Turn::Player(s) => {
                        let before = rngs[s].clone();
                        let a = agents[s].act(&state, s, &mut rngs[s]);
                        if state.validate(a).is_err() {
                            return Err(fail(game_seed, step, format!("seat {s} chose an illegal action {a:?}")));
                        }
                        if checks {
                            report.decisions += 1;
                            if check_policy(&*agents[s], &state, &mut Vec::new())
                                .map_err(|m| fail(game_seed, step, m))?
                            {
                                report.policies += 1;
                            }
                            if observation_only {
                                let mut r = before.clone();
                                let other = state
                                    .determinize(s, &mut GameRng::new(game_seed ^ step as u64))
                                    .map_err(|e| fail(game_seed, step, e.to_string()))?;
                                let b = make().act(&other, s, &mut r);
                                let mut r2 = before;
                                let c = make().act(&state, s, &mut r2);
                                if b != c {
                                    return Err(fail(
                                        game_seed,
                                        step,
                                        format!("seat {s} chose {c:?}, but {b:?} in a state it cannot tell apart"),
                                    ));
                                }
                                report.determinized += 1;
                            }
                        }
                        a
                    }
                };
                ids.push(G::action_id(config, action));
                state.apply_unchecked(action);
            }
            if state.is_terminal() { Ok(ids) } else { Err(fail(game_seed, 0, "the game did not end".into())) }
        };
        let first = play(&mut agents, &mut report, true)?;
        let mut fresh: Vec<Box<dyn crate::Agent<G>>> = (0..n).map(|_| make()).collect();
        let second = play(&mut fresh, &mut report, false)?;
        if first != second {
            let at = first.iter().zip(&second).position(|(a, b)| a != b).unwrap_or(first.len().min(second.len()));
            return Err(fail(game_seed, at, "fresh agents with the same streams played another game".into()));
        }
        report.games += 1;
    }
    Ok(report)
}

/// Whether `agent` wrote a policy for its last decision in `state`, and
/// whether it is a distribution over legal actions.
fn check_policy<G: Game>(
    agent: &dyn crate::Agent<G>,
    state: &G,
    out: &mut Vec<(G::Action, f64)>,
) -> Result<bool, String> {
    agent.policy(out);
    if out.is_empty() {
        return Ok(false);
    }
    let mut sum = 0.0;
    for &(a, p) in out.iter() {
        if state.validate(a).is_err() {
            return Err(format!("the policy names an illegal action {a:?}"));
        }
        if !(p.is_finite() && p > 0.0) {
            return Err(format!("the policy gives {a:?} the probability {p}"));
        }
        sum += p;
    }
    if (sum - 1.0).abs() > 1e-6 {
        return Err(format!("the policy's probabilities sum to {sum}"));
    }
    Ok(true)
}
