//! Sweeps over configuration fields named by JSON paths, and the grid of
//! configurations they span.
//!
//! A sweep `deck.scout=0..8` sets the field `scout` of the object `deck` of
//! the configuration's JSON to each of 0, 1, …, 8 (ranges are inclusive).
//! Any field of any engine's configuration can be swept without code for
//! it: the lab only edits the configuration's JSON and lets the engine
//! deserialize and validate the result.

use std::fmt;
use std::str::FromStr;

use boardgame_kit::Game;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::LabError;

/// The most values one sweep may take (a guard against `0..1000000000`).
pub const MAX_SWEEP_VALUES: usize = 1000;

/// One configuration field and the values it takes.
///
/// ```
/// use boardgame_lab::Sweep;
/// let s: Sweep = "deck.scout=0..3,7".parse().unwrap();
/// assert_eq!(s.path, "deck.scout");
/// assert_eq!(s.values, [0, 1, 2, 3, 7].map(serde_json::Value::from));
/// assert_eq!(s.to_string(), "deck.scout=0,1,2,3,7");
/// let flags: Sweep = "held_penalty=false,true".parse().unwrap();
/// assert_eq!(flags.values, [false, true].map(serde_json::Value::from));
/// assert!("deck.scout=".parse::<Sweep>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sweep {
    /// The field, as a dot-separated JSON path (`deck.scout`, `camels`).
    pub path: String,
    /// The values, in order.
    pub values: Vec<Value>,
}

impl Sweep {
    /// A sweep of `path` over `values`.
    pub fn new(path: impl Into<String>, values: Vec<Value>) -> Sweep {
        Sweep { path: path.into(), values }
    }
}

impl fmt::Display for Sweep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=", self.path)?;
        for (i, v) in self.values.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(&value_text(v))?;
        }
        Ok(())
    }
}

/// A value as the lab writes it: numbers and booleans bare, strings bare,
/// anything else as compact JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An inclusive integer range `a..b` or `a..=b`.
fn parse_range(item: &str) -> Option<Result<(i64, i64), String>> {
    let (a, b) = item.split_once("..")?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let (Ok(a), Ok(b)) = (a.trim().parse::<i64>(), b.trim().parse::<i64>()) else {
        return Some(Err(format!("`{item}` is not a range of integers such as 0..8")));
    };
    if a > b {
        return Some(Err(format!("the range `{item}` is empty")));
    }
    Some(Ok((a, b)))
}

impl FromStr for Sweep {
    type Err = LabError;

    /// `path=values`: values separated by commas, each an inclusive integer
    /// range (`0..8`, `0..=8`), a JSON value (`5`, `true`, `null`,
    /// `"text"`), or bare text taken as a string.
    fn from_str(text: &str) -> Result<Sweep, LabError> {
        let bad = |reason: String| LabError::Sweep { text: text.to_string(), reason };
        let (path, values) =
            text.split_once('=').ok_or_else(|| bad("expected path=values, e.g. deck.scout=0..8".into()))?;
        let path = path.trim();
        if path.is_empty() || path.split('.').any(|s| s.trim().is_empty()) {
            return Err(bad("the path must be field names separated by dots, e.g. deck.scout".into()));
        }
        let mut out = Vec::new();
        for item in values.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(bad("a value is missing".into()));
            }
            match parse_range(item) {
                Some(Ok((a, b))) => {
                    if (b - a) as u64 >= MAX_SWEEP_VALUES as u64 {
                        return Err(bad(format!("more than {MAX_SWEEP_VALUES} values")));
                    }
                    out.extend((a..=b).map(Value::from));
                }
                Some(Err(reason)) => return Err(bad(reason)),
                None => out.push(serde_json::from_str(item).unwrap_or_else(|_| Value::String(item.to_string()))),
            }
            if out.len() > MAX_SWEEP_VALUES {
                return Err(bad(format!("more than {MAX_SWEEP_VALUES} values")));
            }
        }
        for (i, v) in out.iter().enumerate() {
            if out[..i].contains(v) {
                return Err(bad(format!("the value {} is listed twice", value_text(v))));
            }
        }
        Ok(Sweep { path: path.to_string(), values: out })
    }
}

/// Sets the field at `path` (dot-separated) of the JSON object `root` to
/// `value`, creating the keys (and objects) that are missing: a
/// configuration may leave fields out of its JSON (for example fields
/// skipped at their default). Returns whether the field existed. A misspelt field is caught
/// when the engine reads the JSON back (the engines refuse unknown fields),
/// and [`grid`] refuses a sweep of a field that was absent and changes
/// nothing.
///
/// ```
/// use boardgame_lab::set_path;
/// let mut c = serde_json::json!({"players": 5, "deck": {"scout": 7}});
/// assert_eq!(set_path(&mut c, "deck.scout", 3.into()).unwrap(), true);
/// assert_eq!(c["deck"]["scout"], 3);
/// assert_eq!(set_path(&mut c, "fines.one_ambush", 4.into()).unwrap(), false);
/// assert_eq!(c["fines"], serde_json::json!({"one_ambush": 4}));
/// let err = set_path(&mut c, "players.x", 1.into()).unwrap_err();
/// assert_eq!(err.to_string(), "the configuration has no field `players.x` (`players` is not an object of fields)");
/// ```
///
/// # Errors
/// [`LabError::Path`] when a step of the path is a value, not an object.
pub fn set_path(root: &mut Value, path: &str, value: Value) -> Result<bool, LabError> {
    let mut node = root;
    let mut walked = String::new();
    let mut existed = true;
    for key in path.split('.').map(str::trim) {
        let Value::Object(fields) = node else {
            return Err(LabError::Path {
                path: path.to_string(),
                known: format!("`{walked}` is not an object of fields"),
            });
        };
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(key);
        existed &= fields.contains_key(key);
        node = fields.entry(key.to_string()).or_insert_with(|| Value::Object(Default::default()));
    }
    *node = value;
    Ok(existed)
}

/// Whether `root` has the field at `path`.
fn has_path(root: &Value, path: &str) -> bool {
    let mut node = root;
    for key in path.split('.').map(str::trim) {
        match node.get(key) {
            Some(next) => node = next,
            None => return false,
        }
    }
    true
}

/// One setting of a grid cell: a path and its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setting {
    /// The field's path.
    pub path: String,
    /// Its value in this cell.
    pub value: Value,
}

/// The settings of a cell as text: `players=5, deck.scout=3` (`defaults`
/// when nothing is swept).
pub fn settings_text(settings: &[Setting]) -> String {
    if settings.is_empty() {
        return "defaults".to_string();
    }
    settings.iter().map(|s| format!("{}={}", s.path, value_text(&s.value))).collect::<Vec<_>>().join(", ")
}

/// One configuration of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell<C> {
    /// The swept fields' values, in sweep order.
    pub settings: Vec<Setting>,
    /// The configuration.
    pub config: C,
}

/// The grid spanned by `sweeps` over `base`: every combination of their
/// values (the first sweep varies slowest), each laid over `base`'s JSON,
/// deserialized and validated by the engine. No sweep gives the one cell
/// `base`.
///
/// # Errors
/// [`LabError::Path`] for a field the configuration lacks,
/// [`LabError::Sweep`] for a sweep without values or a path swept twice,
/// [`LabError::Config`] for a combination the engine refuses.
pub fn grid<G: Game>(base: &G::Config, sweeps: &[Sweep]) -> Result<Vec<Cell<G::Config>>, LabError> {
    let base_json = serde_json::to_value(base).map_err(|e| LabError::Config {
        settings: "defaults".into(),
        reason: format!("the configuration does not serialize: {e}"),
    })?;
    for (i, s) in sweeps.iter().enumerate() {
        if s.values.is_empty() {
            return Err(LabError::Sweep { text: s.to_string(), reason: "no values".into() });
        }
        if sweeps[..i].iter().any(|t| t.path == s.path) {
            return Err(LabError::Sweep { text: s.to_string(), reason: format!("`{}` is swept twice", s.path) });
        }
        // A misspelt path is reported before any game is played: the
        // engine refuses the unknown field, or (a field absent from the
        // configuration's JSON) no value of the sweep changes anything.
        let mut json = base_json.clone();
        set_path(&mut json, &s.path, s.values[0].clone())?;
        if !has_path(&base_json, &s.path) {
            let mut changes = false;
            for v in &s.values {
                let mut json = base_json.clone();
                set_path(&mut json, &s.path, v.clone())?;
                let text = format!("{}={}", s.path, value_text(v));
                let config: G::Config = serde_json::from_value(json)
                    .map_err(|e| LabError::Config { settings: text.clone(), reason: e.to_string() })?;
                changes |= config != *base;
            }
            if !changes {
                return Err(LabError::Path {
                    path: s.path.clone(),
                    known: "no value of the sweep changes the configuration: the field does not exist, or every \
                            value is its default"
                        .into(),
                });
            }
        }
    }
    let total: usize = sweeps.iter().map(|s| s.values.len()).product();
    let mut cells = Vec::with_capacity(total);
    for index in 0..total {
        let mut rest = index;
        let mut picks = vec![0; sweeps.len()];
        for (k, s) in sweeps.iter().enumerate().rev() {
            picks[k] = rest % s.values.len();
            rest /= s.values.len();
        }
        let mut json = base_json.clone();
        let mut settings = Vec::with_capacity(sweeps.len());
        for (s, &p) in sweeps.iter().zip(&picks) {
            set_path(&mut json, &s.path, s.values[p].clone())?;
            settings.push(Setting { path: s.path.clone(), value: s.values[p].clone() });
        }
        let text = settings_text(&settings);
        let config: G::Config = serde_json::from_value(json)
            .map_err(|e| LabError::Config { settings: text.clone(), reason: e.to_string() })?;
        G::new_game(&config).map_err(|e| LabError::Config { settings: text.clone(), reason: e.to_string() })?;
        cells.push(Cell { settings, config });
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use korovan_core::{Korovan, KorovanConfig};

    #[test]
    fn sweeps_parse_ranges_lists_and_json() {
        let s: Sweep = "players=3..5".parse().unwrap();
        assert_eq!(s.values, vec![Value::from(3), 4.into(), 5.into()]);
        let s: Sweep = "hand_size=null,2..=3".parse().unwrap();
        assert_eq!(s.values, vec![Value::Null, 2.into(), 3.into()]);
        let s: Sweep = "name=abc,\"d\"".parse().unwrap();
        assert_eq!(s.values, vec![Value::from("abc"), "d".into()]);
        for bad in ["players", "=3", "players=", "players=3,", "players=5..3", "a..b=1", "x=1..y", "x=1,1", "x=0..5000"]
        {
            assert!(bad.parse::<Sweep>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_grid_is_the_product_of_the_sweeps_first_slowest() {
        let sweeps: Vec<Sweep> = vec!["players=3..4".parse().unwrap(), "deck.scout=0,8".parse().unwrap()];
        let cells = grid::<Korovan>(&KorovanConfig::default(), &sweeps).unwrap();
        let got: Vec<(u8, u8)> = cells.iter().map(|c| (c.config.players, c.config.deck.scout)).collect();
        assert_eq!(got, vec![(3, 0), (3, 8), (4, 0), (4, 8)]);
        assert_eq!(settings_text(&cells[1].settings), "players=3, deck.scout=8");
        // Untouched fields keep the base's values.
        assert!(cells.iter().all(|c| c.config.deck.spy == 4 && c.config.laps == 1));
        assert_eq!(grid::<Korovan>(&KorovanConfig::default(), &[]).unwrap().len(), 1);
    }

    #[test]
    fn bad_paths_and_configurations_are_errors_that_say_why() {
        let base = KorovanConfig::default();
        let err = grid::<Korovan>(&base, &["deck.scot=1".parse().unwrap()]).unwrap_err().to_string();
        assert!(err.contains("deck.scot=1") && err.contains("unknown field `scot`"), "{err}");
        // A field the JSON leaves out at its default can be swept.
        let cells = grid::<Korovan>(&base, &["fines.one_ambush=1..2".parse().unwrap()]).unwrap();
        assert_eq!(cells[1].config.fines.one_ambush, 2);
        assert_eq!(cells[1].config.fines.two_ambushes, 2, "the other fine keeps its default");
        let cells = grid::<Korovan>(&base, &["starting_cows=4,9".parse().unwrap()]).unwrap();
        assert_eq!(cells[1].config.starting_cows, Some(9));
        // A misspelt field in an engine that ignores unknown fields (the
        // kit's test game) is caught: absent from the JSON, it changes nothing.
        let err = grid::<boardgame_kit::testgame::HiddenNim>(&Default::default(), &["stonez=4".parse().unwrap()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("`stonez`") && err.contains("changes the configuration"), "{err}");
        let nim = grid::<boardgame_kit::testgame::HiddenNim>(&Default::default(), &["stones=4".parse().unwrap()]);
        assert_eq!(nim.unwrap()[0].config.stones, 4);
        let err = grid::<Korovan>(&base, &["players.x=1".parse().unwrap()]).unwrap_err().to_string();
        assert!(err.contains("not an object"), "{err}");
        let err = grid::<Korovan>(&base, &["players=2..3".parse().unwrap()]).unwrap_err().to_string();
        assert!(err.contains("players=2") && err.contains("between 3 and 9"), "{err}");
        let err = grid::<Korovan>(&base, &["laps=x".parse().unwrap()]).unwrap_err().to_string();
        assert!(err.contains("laps=x"), "{err}");
        let twice: Vec<Sweep> = vec!["laps=1".parse().unwrap(), "laps=2".parse().unwrap()];
        assert!(grid::<Korovan>(&base, &twice).unwrap_err().to_string().contains("swept twice"));
    }
}
