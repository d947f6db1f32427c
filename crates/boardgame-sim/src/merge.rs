//! The merge of shards' JSON of either kind that shards, a simulation's
//! (`boardgame simulate --json`, [`crate::simulate`]) and a ladder's
//! (`boardgame ladder --json`, [`crate::ladder`]), told apart by their
//! format tag: what the Python binding's `merge_results` calls.

use crate::SimError;
use crate::ladder::{self, LADDER_FORMAT};
use crate::simulate::{self, RESULTS_FORMAT, format_of};

/// Merges `texts`, the JSON of shards of one simulation or of one ladder,
/// by their format tag: [`simulate::merge_texts`] for simulations,
/// [`ladder::merge_texts`] for ladders. The JSON of the sum is what the
/// unsharded run prints when the shards cover its seeds.
///
/// # Errors
/// A usage error for no texts, a text without a format tag or of a format
/// that does not merge, texts of different kinds, and whatever the merge
/// of their kind refuses (different experiments, overlapping seeds).
pub fn merge_results<S: AsRef<str>>(texts: &[S]) -> Result<String, SimError> {
    let mut formats = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        let format = format_of(text.as_ref()).map_err(|e| SimError::Usage(format!("result {i}: not results: {e}")))?;
        formats.push(format);
    }
    let Some(first) = formats.first() else {
        return Err(SimError::Usage("no results to merge".to_string()));
    };
    if let Some(i) = formats.iter().position(|f| f != first) {
        return Err(SimError::Usage(format!(
            "result {i} is of format `{}` and result 0 of format `{first}`: results of different kinds do not merge",
            formats[i]
        )));
    }
    match first.as_str() {
        RESULTS_FORMAT => simulate::merge_texts(texts),
        LADDER_FORMAT => ladder::merge_texts(texts),
        other => Err(SimError::Usage(format!(
            "result 0 is of format `{other}`: the results that merge are of format {RESULTS_FORMAT} or {LADDER_FORMAT}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameName;
    use crate::ladder::{LadderSpec, run_ladder};
    use crate::simulate::{Shard, SimSpec, simulate_spec};

    fn sim(shard: Option<Shard>) -> String {
        let spec = SimSpec {
            game: GameName::Caravan,
            players: Some(2),
            config: None,
            games: 4,
            agents: "random".into(),
            seed: 7,
            threads: 1,
            shard,
            fixed_seats: false,
        };
        simulate::to_json(&simulate_spec(&spec).unwrap())
    }

    fn ladder_json(shard: Option<Shard>) -> String {
        let spec = LadderSpec {
            game: GameName::Caravan,
            players: vec![2],
            config: None,
            agents: "random,heuristic".into(),
            deals: 4,
            seed: 7,
            threads: 1,
            shard,
        };
        ladder::to_json(&run_ladder(&spec, &()).unwrap())
    }

    #[test]
    fn either_kind_merges_by_its_format_tag() {
        let halves = |f: fn(Option<Shard>) -> String| [0, 1].map(|i| f(Some(Shard::new(i, 2).unwrap())));
        assert_eq!(merge_results(&halves(sim)).unwrap(), sim(None));
        assert_eq!(merge_results(&halves(ladder_json)).unwrap(), ladder_json(None));
        assert_eq!(format_of(&sim(None)).unwrap(), RESULTS_FORMAT);
        assert_eq!(format_of(&ladder_json(None)).unwrap(), LADDER_FORMAT);
    }

    #[test]
    fn mixed_unknown_and_missing_results_are_refused() {
        let err = |texts: &[String]| merge_results(texts).unwrap_err().to_string();
        let mixed = err(&[sim(None), ladder_json(None)]);
        assert!(mixed.contains("result 1 is of format `boardgame-ladder/1`") && mixed.contains("different kinds"));
        assert_eq!(err(&[]), "no results to merge");
        assert!(err(&["{\"format\": \"boardgame-ladder/9\"}".into()]).contains("format `boardgame-ladder/9`"));
        assert!(err(&[sim(None), "[]".into()]).starts_with("result 1: not results"));
        assert!(err(&["{}".into()]).contains("missing field `format`"));
        let overlap = err(&[ladder_json(None), ladder_json(None)]);
        assert!(overlap.contains("already counted"), "{overlap}");
    }
}
