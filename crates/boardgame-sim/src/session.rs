//! A game and a state as a front end outside Rust holds them, generic over
//! [`Game`]: [`GameCore`] (a validated configuration) and [`StateCore`]
//! (the engine's state and the ids played to reach it), with the
//! OpenSpiel-shaped operations the Python binding's classes forward to
//! (ids, masks, records, pickles, resampling, playouts). Every operation
//! takes unchecked input and returns a message, never panics.

use std::fmt::Display;

use boardgame_kit::{
    ActionBuffer, ActionId, Game, GameRecord, GameRng, RandomAgent, Turn, legal_action_mask, play_game, random_action,
    sample_chance,
};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::Value;

/// What a front end outside Rust needs of an engine: the [`Game`] contract, a rendering
/// of the whole state and of a seat's observation, and a serde form of the
/// state (pickling, states without a history).
pub trait Bindable: Game<Observation: Display> + Display + Serialize + DeserializeOwned {}

impl<G> Bindable for G where G: Game<Observation: Display> + Display + Serialize + DeserializeOwned {}

/// OpenSpiel's id of the chance "player".
pub const CHANCE_PLAYER: i64 = -1;
/// OpenSpiel's id of the terminal "player".
pub const TERMINAL_PLAYER: i64 = -4;

/// A validated configuration of engine `G`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameCore<G: Game> {
    /// The configuration.
    pub config: G::Config,
    /// Its initial state (a state knows its seat count; the config type may not).
    pub initial: G,
}

impl<G: Bindable> GameCore<G> {
    /// `config`, validated by the engine.
    ///
    /// # Errors
    /// The engine's message when it refuses the configuration.
    pub fn new(config: G::Config) -> Result<Self, String> {
        let initial = G::new_game(&config).map_err(|e| format!("{}: {e}", G::NAME))?;
        Ok(GameCore { config, initial })
    }

    /// The rules' default configuration with the fields of the JSON object
    /// `overlay` laid over it, then `players` if given. Keys are exactly the
    /// fields of the Rust configuration; an unknown key is an error.
    ///
    /// # Errors
    /// When `overlay` is not a JSON object of the config's fields, a value
    /// has the wrong type, or the engine refuses the result.
    pub fn from_overlay(players: Option<Value>, overlay: &str) -> Result<Self, String> {
        let patch: Value = serde_json::from_str(overlay).map_err(|e| format!("config is not valid JSON: {e}"))?;
        let Value::Object(mut patch) = patch else {
            return Err("the config must be a mapping of field names to values".to_string());
        };
        if let Some(p) = players {
            patch.insert("players".to_string(), p);
        }
        let base = serde_json::to_value(G::Config::default()).map_err(|e| e.to_string())?;
        let Value::Object(mut fields) = base else {
            return Err(format!("{} has no configurable fields", G::NAME));
        };
        for (key, value) in patch {
            if !fields.contains_key(&key) {
                let known: Vec<&str> = fields.keys().map(String::as_str).collect();
                return Err(format!("{} has no config field `{key}` (fields: {})", G::NAME, known.join(", ")));
            }
            fields.insert(key, value);
        }
        let config: G::Config = serde_json::from_value(Value::Object(fields))
            .map_err(|e| format!("invalid {} configuration: {e}", G::NAME))?;
        Self::new(config)
    }

    /// The configuration as a JSON object (every field).
    pub fn config_json(&self) -> String {
        serde_json::to_string(&self.config).unwrap_or_default()
    }

    /// The number of seats.
    pub fn num_players(&self) -> usize {
        self.initial.num_players()
    }

    /// The size of the action space.
    pub fn num_distinct_actions(&self) -> usize {
        G::num_distinct_actions(&self.config)
    }

    /// The bound on a game's length, chance included.
    pub fn max_game_length(&self) -> usize {
        G::max_game_length(&self.config)
    }

    /// The shape of the observation tensor.
    pub fn observation_tensor_shape(&self) -> Vec<usize> {
        G::observation_tensor_shape(&self.config)
    }

    /// The length of the observation tensor.
    pub fn observation_tensor_size(&self) -> usize {
        G::observation_tensor_len(&self.config)
    }

    /// The bounds of the observation tensor's entries, `(low, high)`:
    /// the engine's, else every `f32` value.
    pub fn observation_tensor_bounds(&self) -> (Vec<f32>, Vec<f32>) {
        G::observation_tensor_bounds(&self.config).unwrap_or_else(|| {
            let len = G::observation_tensor_len(&self.config);
            (vec![f32::NEG_INFINITY; len], vec![f32::INFINITY; len])
        })
    }

    /// The most outcomes one chance node lists (the capacity of the
    /// engine's chance list).
    pub fn max_chance_outcomes(&self) -> usize {
        G::ChanceList::default().capacity()
    }

    /// A fresh initial state with an empty history.
    pub fn new_initial_state(&self) -> StateCore<G> {
        StateCore { state: self.initial.clone(), history: Some(Vec::new()) }
    }

    /// Plays one game in Rust with the kit's driver (`play_game`), a
    /// `RandomAgent` in every seat, from `seed`, and returns its record.
    ///
    /// # Errors
    /// When the driver fails (an engine defect).
    pub fn play_random(&self, seed: u64) -> Result<GameRecord<G::Config>, String> {
        let mut agents: Vec<RandomAgent> = vec![RandomAgent; self.num_players()];
        let mut refs: Vec<&mut dyn boardgame_kit::Agent<G>> =
            agents.iter_mut().map(|a| a as &mut dyn boardgame_kit::Agent<G>).collect();
        play_game::<G>(&self.config, &mut refs, seed).map(|g| g.record).map_err(|e| e.to_string())
    }
}

/// A state of engine `G` and, when known, the ids of every action played
/// from the initial state to reach it (a state drawn by
/// [`StateCore::resample`] has none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "G: Bindable")]
pub struct StateCore<G: Game> {
    /// The engine's state.
    pub state: G,
    /// The ids played so far, if known.
    pub history: Option<Vec<ActionId>>,
}

/// The seed of a sampler's draw `u` in `[0, 1)` (pyspiel's samplers give
/// floats where this package takes integer seeds): `u · (2^64 − 1)`,
/// rounded down.
///
/// # Errors
/// When `u` is not in `[0, 1)` (NaN included).
pub fn seed_of_unit(u: f64) -> Result<u64, String> {
    if !(0.0..1.0).contains(&u) {
        return Err(format!("the sampler returned {u}, not a float in [0, 1)"));
    }
    Ok((u * (u64::MAX as f64)) as u64)
}

/// Why an action id from Python was refused.
pub fn unknown_id(id: i128, num_ids: usize) -> String {
    format!("unknown action id {id} (the action space has {num_ids} ids)")
}

impl<G: Bindable> StateCore<G> {
    /// The number of ids of this state's action space.
    pub fn num_distinct_actions(&self) -> usize {
        G::num_distinct_actions(self.state.config())
    }

    /// OpenSpiel's player id: the seat, −1 at a chance node, −4 at the end.
    pub fn current_player(&self) -> i64 {
        match self.state.turn() {
            Turn::Player(p) => p as i64,
            Turn::Chance => CHANCE_PLAYER,
            Turn::Terminal => TERMINAL_PLAYER,
        }
    }

    /// The legal action ids, ascending (at a chance node: the outcomes'
    /// ids; at the end: none).
    pub fn legal_actions(&self) -> Vec<ActionId> {
        let mut list = G::ActionList::default();
        self.state.legal_actions(&mut list);
        let config = self.state.config();
        let mut ids: Vec<ActionId> = list.iter().map(|&a| G::action_id(config, a)).collect();
        if !ids.is_sorted() {
            ids.sort_unstable();
        }
        ids
    }

    /// The legal action ids in the engine's own order (the order the kit's
    /// `RandomAgent` draws from).
    pub fn legal_actions_engine_order(&self) -> Vec<ActionId> {
        let mut list = G::ActionList::default();
        self.state.legal_actions(&mut list);
        let config = self.state.config();
        list.iter().map(|&a| G::action_id(config, a)).collect()
    }

    /// Writes the legal-action mask (1 at every legal id) into `out`.
    ///
    /// # Errors
    /// When `out` is not as long as the action space.
    pub fn legal_actions_mask_into(&self, out: &mut [u8]) -> Result<(), String> {
        let mut mask = vec![false; self.num_distinct_actions()];
        legal_action_mask(&self.state, &mut mask).map_err(|e| e.to_string())?;
        if out.len() != mask.len() {
            return Err(format!("mask has length {}, the action space has {} ids", out.len(), mask.len()));
        }
        for (o, m) in out.iter_mut().zip(mask) {
            *o = u8::from(m);
        }
        Ok(())
    }

    /// The chance outcomes as `(id, weight)`, ascending by id; the
    /// probability of each is `weight / sum(weights)`. Empty unless a
    /// chance node.
    pub fn chance_weights(&self) -> Vec<(ActionId, u32)> {
        let mut list = G::ChanceList::default();
        self.state.chance_outcomes(&mut list);
        let config = self.state.config();
        let mut out: Vec<(ActionId, u32)> = list.iter().map(|o| (G::action_id(config, o.action), o.weight)).collect();
        out.sort_unstable_by_key(|&(id, _)| id);
        out
    }

    /// The chance outcomes as `(id, probability)`, ascending by id.
    pub fn chance_outcomes(&self) -> Vec<(ActionId, f64)> {
        let weights = self.chance_weights();
        let total: u64 = weights.iter().map(|&(_, w)| u64::from(w)).sum();
        weights.into_iter().map(|(id, w)| (id, if total == 0 { 0.0 } else { f64::from(w) / total as f64 })).collect()
    }

    /// The action with id `id`, checked against the action space.
    ///
    /// # Errors
    /// When `id` is outside the action space.
    pub fn action(&self, id: i128) -> Result<G::Action, String> {
        let n = self.num_distinct_actions();
        let id32 = u32::try_from(id).map_err(|_| unknown_id(id, n))?;
        if id32 as usize >= n {
            return Err(unknown_id(id, n));
        }
        G::action_from_id(self.state.config(), id32).map_err(|e| e.to_string())
    }

    /// Plays the action with id `id`, validated; the state is unchanged on
    /// error.
    ///
    /// # Errors
    /// When the id is unknown or the action is illegal now (the engine's
    /// message).
    pub fn apply_id(&mut self, id: i128) -> Result<(), String> {
        let action = self.action(id)?;
        self.state.apply(action).map_err(|e| e.to_string())?;
        if let Some(h) = &mut self.history {
            h.push(G::action_id(self.state.config(), action));
        }
        Ok(())
    }

    /// The notation of the action with id `id`.
    ///
    /// # Errors
    /// When the id is unknown.
    pub fn action_to_string(&self, id: i128) -> Result<String, String> {
        self.action(id).map(|a| a.to_string())
    }

    /// The id of the action written `text`.
    ///
    /// # Errors
    /// When the text is not an action's notation.
    pub fn string_to_action(&self, text: &str) -> Result<ActionId, String> {
        let action: G::Action = text.parse().map_err(|e: G::Error| e.to_string())?;
        Ok(G::action_id(self.state.config(), action))
    }

    /// Per-seat returns (1 for a sole winner, 1/k for a k-way draw, 0
    /// otherwise; all 0 while the game goes on).
    pub fn returns(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.state.num_players()];
        self.state.returns(&mut out);
        out
    }

    /// The engine's score of every seat.
    pub fn scores(&self) -> Vec<i32> {
        (0..self.state.num_players()).map(|s| self.state.score(s)).collect()
    }

    /// The winning seats (several for a draw), or `None` before the end.
    pub fn winners(&self) -> Option<Vec<usize>> {
        self.state.outcome().map(|o| o.winners().iter().collect())
    }

    /// Checks that `player` is a seat.
    ///
    /// # Errors
    /// When it is not.
    pub fn seat(&self, player: i128) -> Result<usize, String> {
        let n = self.state.num_players();
        match usize::try_from(player) {
            Ok(s) if s < n => Ok(s),
            _ => Err(format!("seat {player} does not exist ({n} players)")),
        }
    }

    /// Checks a pyspiel-style `player` argument: a seat, or
    /// [`CHANCE_PLAYER`].
    ///
    /// # Errors
    /// For any other number.
    pub fn check_player(&self, player: i128) -> Result<(), String> {
        if player == i128::from(CHANCE_PLAYER) {
            return Ok(());
        }
        self.seat(player).map(|_| ()).map_err(|e| format!("{e}; a player is a seat or -1 (chance)"))
    }

    /// The legal-action mask (1 at every legal id) over the action space.
    ///
    /// # Errors
    /// The kit's message when the engine lists an id outside its space.
    pub fn legal_actions_mask(&self) -> Result<Vec<u8>, String> {
        let mut mask = vec![0u8; self.num_distinct_actions()];
        self.legal_actions_mask_into(&mut mask)?;
        Ok(mask)
    }

    /// `player`'s observation tensor.
    ///
    /// # Errors
    /// When `player` is not a seat.
    pub fn observation_tensor(&self, player: i128) -> Result<Vec<f32>, String> {
        let mut out = vec![0f32; G::observation_tensor_len(self.state.config())];
        self.observation_tensor_into(player, &mut out)?;
        Ok(out)
    }

    /// Writes `player`'s observation tensor into `out`.
    ///
    /// # Errors
    /// When `player` is not a seat or `out` has the wrong length.
    pub fn observation_tensor_into(&self, player: i128, out: &mut [f32]) -> Result<(), String> {
        let seat = self.seat(player)?;
        let expected = G::observation_tensor_len(self.state.config());
        if out.len() != expected {
            return Err(format!("buffer has length {}, expected {expected}", out.len()));
        }
        self.state.write_observation_tensor(seat, out).map_err(|e| e.to_string())
    }

    /// `player`'s observation, rendered.
    ///
    /// # Errors
    /// When `player` is not a seat.
    pub fn observation_string(&self, player: i128) -> Result<String, String> {
        let seat = self.seat(player)?;
        self.state.observation(seat).map(|o| o.to_string()).map_err(|e| e.to_string())
    }

    /// A state drawn by the engine's determinization from what `player`
    /// knows, with the kit's generator seeded by `seed`. It has no history.
    ///
    /// # Errors
    /// When `player` is not a seat.
    pub fn resample(&self, player: i128, seed: u64) -> Result<Self, String> {
        let seat = self.seat(player)?;
        let state = self.state.determinize(seat, &mut GameRng::new(seed)).map_err(|e| e.to_string())?;
        Ok(StateCore { state, history: None })
    }

    /// The record of the game so far (the `boardgame` binary's format).
    ///
    /// # Errors
    /// When the state has no history (it was drawn by `resample`).
    pub fn to_record(&self, seed: Option<u64>) -> Result<String, String> {
        let Some(history) = &self.history else {
            return Err("this state was drawn by resample_from_infostate and has no history to record".to_string());
        };
        let mut record = GameRecord::<G::Config>::new::<G>(self.state.config().clone(), seed);
        record.actions = history.clone();
        Ok(record.to_json())
    }

    /// The state a JSON record replays to, validated step by step.
    ///
    /// # Errors
    /// When the record is malformed, of another engine or version, or an
    /// action is unknown or illegal (naming its step).
    pub fn from_record(json: &str) -> Result<Self, String> {
        let record = GameRecord::<G::Config>::from_json::<G>(json).map_err(|e| e.to_string())?;
        let state = record.replay::<G>().map_err(|e| e.to_string())?;
        Ok(StateCore { state, history: Some(record.actions) })
    }

    /// The serde form of the state and its history (pickling).
    pub fn to_pickle(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A state from [`StateCore::to_pickle`]'s text. The engine validates
    /// the position; a history, if present, must replay to it.
    ///
    /// # Errors
    /// When the text is not a valid pickled state of this engine.
    pub fn from_pickle(text: &str) -> Result<Self, String> {
        let core: Self = serde_json::from_str(text).map_err(|e| format!("corrupt pickled {} state: {e}", G::NAME))?;
        if let Some(history) = &core.history {
            let mut record = GameRecord::<G::Config>::new::<G>(core.state.config().clone(), None);
            record.actions = history.clone();
            let replayed = record.replay::<G>().map_err(|e| format!("corrupt pickled {} state: {e}", G::NAME))?;
            if replayed != core.state {
                return Err(format!("corrupt pickled {} state: its history does not lead to its position", G::NAME));
            }
        }
        Ok(core)
    }

    /// Samples a chance outcome exactly by its weights from `rng` (the
    /// kit's `sample_chance`, as the driver does), without applying it.
    /// `None` unless a chance node.
    pub fn sample_chance(&self, rng: &mut GameRng) -> Option<ActionId> {
        let mut buf = G::ChanceList::default();
        sample_chance(&self.state, rng, &mut buf).map(|a| G::action_id(self.state.config(), a))
    }

    /// Plays uniformly random actions (chance by its weights) from `rng`
    /// until the end or `max_steps` actions, recording them; returns the
    /// number played. Same choices as the kit's `playout` with that `rng`.
    pub fn playout(&mut self, rng: &mut GameRng, max_steps: usize) -> usize {
        let mut steps = 0;
        while steps < max_steps {
            let Some(action) = random_action(&self.state, rng) else { break };
            self.state.apply_unchecked(action);
            if let Some(h) = &mut self.history {
                h.push(G::action_id(self.state.config(), action));
            }
            steps += 1;
        }
        steps
    }
}
