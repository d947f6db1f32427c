//! The engines the command knows: the engine registry
//! ([`boardgame_sim::games`], re-exported here), and the command-line
//! options and parser that name them.

use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

pub use boardgame_sim::games::{Engine, GameName, build_config, overlay, seats_of, with_game};

/// The game options shared by the commands.
#[derive(Args, Debug, Clone)]
pub struct GameOpts {
    /// Number of players (the rules' default when omitted).
    #[arg(long, short = 'p')]
    pub players: Option<usize>,
    /// Configuration fields as a JSON object laid over the rules' defaults,
    /// e.g. '{"max_turns": 200}'.
    #[arg(long, value_name = "JSON")]
    pub config: Option<String>,
}

/// The parser of a game's name on the command line: the names of
/// [`GameName::ALL`] with their help line.
pub fn game_parser() -> impl TypedValueParser<Value = GameName> {
    let values = GameName::ALL.iter().map(|&g| PossibleValue::new(g.cli_name()).help(g.about()));
    PossibleValuesParser::new(values)
        .try_map(|name: String| GameName::from_cli_name(&name).ok_or_else(|| format!("unknown game `{name}`")))
}
