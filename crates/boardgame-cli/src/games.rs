//! The engines the command knows: the simulation library's adapters
//! ([`boardgame_sim::games`], re-exported here) plus what only the command
//! needs of an engine, how it renders a state or a player's view and what
//! `boardgame bench` measures.

use boardgame_kit::Game;
use boardgame_kit::testgame::HiddenNim;
use caravan_core::Caravan;
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use korovan_core::Korovan;

pub use boardgame_sim::games::{GameName, SimGame, build_config, overlay, seats_of, with_game};

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
/// [`GameName::EVERY`] with their help line, the test game hidden.
pub fn game_parser() -> impl TypedValueParser<Value = GameName> {
    let values = GameName::EVERY.iter().map(|&g| PossibleValue::new(g.cli_name()).help(g.about()).hide(g.hidden()));
    PossibleValuesParser::new(values)
        .try_map(|name: String| GameName::from_cli_name(&name).ok_or_else(|| format!("unknown game `{name}`")))
}

/// What the command needs of an engine beyond [`SimGame`].
pub trait CliGame: SimGame + boardgame_kit::Words {
    /// The player counts `boardgame bench` measures when none is given.
    const BENCH_PLAYERS: &'static [usize];

    /// The whole state, rendered for a reader who may see everything
    /// (replays).
    fn render(&self) -> String;

    /// What `seat` may see, rendered (the human player's screen).
    fn render_view(&self, seat: usize) -> String;
}

impl CliGame for HiddenNim {
    const BENCH_PLAYERS: &'static [usize] = &[2];

    fn render(&self) -> String {
        let (a, b) = (self.observation(0), self.observation(1));
        match (a, b) {
            (Ok(a), Ok(b)) => format!("stones: {}, cards: {} and {}", a.stones, a.own_card, b.own_card),
            _ => String::new(),
        }
    }

    fn render_view(&self, seat: usize) -> String {
        match self.observation(seat) {
            Ok(o) => {
                let other = if o.other_card == 0 { "?".to_string() } else { o.other_card.to_string() };
                format!("stones: {}, your card: {}, other card: {other}", o.stones, o.own_card)
            }
            Err(e) => e.to_string(),
        }
    }
}

impl CliGame for Korovan {
    const BENCH_PLAYERS: &'static [usize] = &[3, 5, 9];

    fn render(&self) -> String {
        self.to_string()
    }

    fn render_view(&self, seat: usize) -> String {
        match self.observation(seat) {
            Ok(o) => o.to_string(),
            Err(e) => e.to_string(),
        }
    }
}

impl CliGame for Caravan {
    const BENCH_PLAYERS: &'static [usize] = &[2, 3, 4];

    fn render(&self) -> String {
        self.to_string()
    }

    /// Caravan is a game of perfect information (C-8.2): a seat's view is
    /// the whole table.
    fn render_view(&self, seat: usize) -> String {
        match self.observation(seat) {
            Ok(_) => self.to_string(),
            Err(e) => e.to_string(),
        }
    }
}
