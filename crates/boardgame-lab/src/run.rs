//! Running a study: arena self-play in every cell of a grid, tallied into
//! [`LabResults`] — integer sums only, so shards merge exactly and a report
//! depends on nothing but the seeds.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

use boardgame_kit::{Arena, ArenaGame, Entrant, EntrantStats, Game, Outcome, SHARE_UNIT};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::stats::{Estimate, Z95, diff_within_games, mean_interval, wilson};
use crate::sweep::{Setting, Sweep, grid, settings_text};
use crate::worth::{Treatment, WorthTally, measure};
use crate::{Engine, LabError};

/// The format tag of [`LabResults`] in JSON.
pub const LAB_FORMAT: &str = "boardgame-balance/1";

/// What to study.
#[derive(Clone, Debug)]
pub struct Study<G: Game> {
    /// The configuration the sweeps are laid over.
    pub base: G::Config,
    /// The sweeps; their product is the grid.
    pub sweeps: Vec<Sweep>,
    /// The seeds played in every cell (the same seeds in each, so cells
    /// differ by their configuration, not by their luck).
    pub seeds: Range<u64>,
    /// Worker threads (results do not depend on them).
    pub threads: usize,
    /// Whether to measure the engine's card-worth treatments
    /// ([`Engine::treatments`]) in the base configuration.
    pub worth: bool,
    /// Seeds of the worth measurement (each is played once plus once per
    /// treatment).
    pub worth_seeds: Range<u64>,
}

/// The tallies of one cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellResult {
    /// The swept fields' values.
    pub settings: Vec<Setting>,
    /// The full configuration, as JSON.
    pub config: Value,
    /// Seats in the order they lead ([`Engine::turn_order`]).
    pub order: Vec<usize>,
    /// Games played.
    pub games: u64,
    /// Per seat (by seat index).
    pub seats: Vec<EntrantStats>,
    /// Per agent (entrant), in the study's agent order.
    pub agents: Vec<EntrantStats>,
    /// Games that ended in a draw.
    pub draws: u64,
    /// Sum of game lengths in actions (chance included).
    pub length_sum: u64,
    /// Sum of squared game lengths.
    pub length_sq_sum: u64,
    /// Games per length in actions.
    pub lengths: BTreeMap<u64, u64>,
}

impl CellResult {
    /// The number of seats.
    pub fn players(&self) -> usize {
        self.seats.len()
    }

    /// The settings as text.
    pub fn label(&self) -> String {
        settings_text(&self.settings)
    }

    /// The fair share `1/n`.
    pub fn fair(&self) -> f64 {
        1.0 / self.players().max(1) as f64
    }

    /// The win share of `seat` with its Wilson interval.
    pub fn seat_share(&self, seat: usize) -> Estimate {
        let s = &self.seats[seat];
        wilson(s.win_share(), s.games, Z95)
    }

    /// The win share of the seat at position `k` of the turn order.
    pub fn position_share(&self, k: usize) -> Estimate {
        self.seat_share(self.order[k])
    }

    /// The leading seat's advantage: its share minus `1/n`.
    pub fn lead_advantage(&self) -> Estimate {
        self.position_share(0).shifted(-self.fair())
    }

    /// The leading seat's share minus the last seat's (of the turn order),
    /// measured in the same games ([`diff_within_games`]).
    pub fn first_minus_last(&self) -> Estimate {
        let last = self.order.len() - 1;
        let (a, b) = (&self.seats[self.order[0]], &self.seats[self.order[last]]);
        diff_within_games(a.win_share(), b.win_share(), self.games, Z95)
    }

    /// The mean game length in actions with its normal interval.
    pub fn length(&self) -> Estimate {
        mean_interval(self.length_sum as f64, self.length_sq_sum as f64, self.games, Z95)
    }

    /// The share of drawn games with its Wilson interval.
    pub fn draw_share(&self) -> Estimate {
        let p = if self.games == 0 { 0.0 } else { self.draws as f64 / self.games as f64 };
        wilson(p, self.games, Z95)
    }

    fn merge(&mut self, other: &CellResult) -> Result<(), LabError> {
        if self.settings != other.settings || self.config != other.config || self.order != other.order {
            return Err(LabError::Merge(format!("cells `{}` and `{}` differ", self.label(), other.label())));
        }
        for (a, b) in self.seats.iter_mut().zip(&other.seats).chain(self.agents.iter_mut().zip(&other.agents)) {
            a.merge(b);
        }
        self.games += other.games;
        self.draws += other.draws;
        self.length_sum += other.length_sum;
        self.length_sq_sum = self.length_sq_sum.saturating_add(other.length_sq_sum);
        for (len, n) in &other.lengths {
            *self.lengths.entry(*len).or_default() += n;
        }
        Ok(())
    }
}

/// The card-worth measurement in the base configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorthResult {
    /// What the treatments force ([`Engine::TREATMENT`]).
    #[serde(default)]
    pub method: String,
    /// The base configuration, as JSON.
    pub config: Value,
    /// Per treatment.
    pub treatments: Vec<WorthTally>,
}

/// Everything a study measured: integer tallies plus what identifies the
/// experiment. Serialize it to merge shards later.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabResults {
    /// Always [`LAB_FORMAT`].
    pub format: String,
    /// The engine ([`Game::NAME`]).
    pub engine: String,
    /// The engine's rules version.
    pub rules_version: u32,
    /// The leading seat's role ([`Engine::LEAD_ROLE`]).
    pub lead_role: String,
    /// The agents, in entrant order (seats rotate through them).
    pub agents: Vec<String>,
    /// The sweeps.
    pub sweeps: Vec<Sweep>,
    /// The seeds played in every cell, as disjoint half-open ranges.
    pub seeds: Vec<[u64; 2]>,
    /// The seeds of the worth measurement.
    pub worth_seeds: Vec<[u64; 2]>,
    /// Per cell, in grid order.
    pub cells: Vec<CellResult>,
    /// The card-worth measurement, when asked for.
    pub worth: Option<WorthResult>,
}

fn join_ranges(a: &[[u64; 2]], b: &[[u64; 2]]) -> Result<Vec<[u64; 2]>, LabError> {
    let mut all: Vec<[u64; 2]> = a.iter().chain(b).copied().filter(|[s, e]| s < e).collect();
    all.sort_unstable();
    let mut out: Vec<[u64; 2]> = Vec::new();
    for r in all {
        match out.last_mut() {
            Some(last) if r[0] < last[1] => {
                return Err(LabError::Merge(format!(
                    "seed ranges {}..{} and {}..{} overlap",
                    last[0], last[1], r[0], r[1]
                )));
            }
            Some(last) if r[0] == last[1] => last[1] = r[1],
            _ => out.push(r),
        }
    }
    Ok(out)
}

impl LabResults {
    /// Adds the results of another shard of the same study.
    ///
    /// # Errors
    /// [`LabError::Merge`] when the studies differ or their seeds overlap.
    pub fn merge(&mut self, other: &LabResults) -> Result<(), LabError> {
        let same = self.format == other.format
            && self.engine == other.engine
            && self.rules_version == other.rules_version
            && self.agents == other.agents
            && self.sweeps == other.sweeps
            && self.cells.len() == other.cells.len()
            && self.worth.is_some() == other.worth.is_some();
        if !same {
            return Err(LabError::Merge("the results are of different studies (engine, agents or sweeps)".into()));
        }
        self.seeds = join_ranges(&self.seeds, &other.seeds)?;
        self.worth_seeds = join_ranges(&self.worth_seeds, &other.worth_seeds)?;
        for (a, b) in self.cells.iter_mut().zip(&other.cells) {
            a.merge(b)?;
        }
        if let (Some(a), Some(b)) = (&mut self.worth, &other.worth) {
            if a.config != b.config || a.treatments.len() != b.treatments.len() {
                return Err(LabError::Merge("the worth measurements differ".into()));
            }
            for (x, y) in a.treatments.iter_mut().zip(&b.treatments) {
                if x.name != y.name {
                    return Err(LabError::Merge(format!("treatments `{}` and `{}` differ", x.name, y.name)));
                }
                x.merge(y);
            }
        }
        Ok(())
    }

    /// Games played in each cell.
    pub fn games_per_cell(&self) -> u64 {
        self.seeds.iter().map(|[a, b]| b - a).sum()
    }
}

#[derive(Default)]
struct Tally {
    seats: Vec<EntrantStats>,
    draws: u64,
    length_sq_sum: u64,
    lengths: BTreeMap<u64, u64>,
}

/// Runs `study` with `entrants` (one per seat of every cell; use
/// [`entrants_for`] to stretch a list): every cell of the grid plays the
/// study's seeds with the kit's [`Arena`] (seats rotate through the
/// entrants), then the worth measurement if asked. `on_game` is called
/// after every game (progress bars).
///
/// # Errors
/// [`LabError`] for a bad sweep, configuration or agent list, or a game
/// that fails.
pub fn run_study<G: Engine>(
    study: &Study<G>,
    entrants: &dyn Fn(usize) -> Result<Vec<Entrant<G>>, LabError>,
    on_game: &(dyn Fn() + Sync),
) -> Result<LabResults, LabError> {
    let cells = grid::<G>(&study.base, &study.sweeps)?;
    let mut results = Vec::with_capacity(cells.len());
    let mut agent_names: Option<Vec<String>> = None;
    for cell in &cells {
        let label = settings_text(&cell.settings);
        let players = G::new_game(&cell.config)
            .map_err(|e| LabError::Config { settings: label.clone(), reason: e.to_string() })?
            .num_players();
        let entrants = entrants(players)?;
        let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        agent_names.get_or_insert_with(|| names.clone());
        let tally = Mutex::new(Tally {
            seats: (0..players).map(|s| EntrantStats { name: format!("seat {s}"), ..Default::default() }).collect(),
            ..Default::default()
        });
        let count = |game: &ArenaGame<G>| {
            let outcome = game.state.outcome();
            let mut t = tally.lock().unwrap_or_else(|p| p.into_inner());
            for (seat, stats) in t.seats.iter_mut().enumerate() {
                stats.record(outcome, seat, game.state.score(seat));
            }
            t.draws += u64::from(matches!(outcome, Some(Outcome::Draw(_))));
            let len = game.length as u64;
            t.length_sq_sum = t.length_sq_sum.saturating_add(len * len);
            *t.lengths.entry(len).or_default() += 1;
            drop(t);
            on_game();
        };
        let arena = Arena::<G>::new(cell.config.clone());
        let report =
            arena.run_with(&entrants, study.seeds.clone(), study.threads, &count).map_err(|e| LabError::Play {
                seeds: format!("{}..{}", study.seeds.start, study.seeds.end),
                settings: label.clone(),
                reason: e.to_string(),
            })?;
        let t = tally.into_inner().unwrap_or_else(|p| p.into_inner());
        results.push(CellResult {
            settings: cell.settings.clone(),
            config: serde_json::to_value(&cell.config)
                .map_err(|e| LabError::Config { settings: label.clone(), reason: e.to_string() })?,
            order: G::turn_order(&cell.config, players),
            games: report.games,
            seats: t.seats,
            agents: report.entrants,
            draws: t.draws,
            length_sum: report.length_sum,
            length_sq_sum: t.length_sq_sum,
            lengths: t.lengths,
        });
    }
    let worth = if study.worth {
        let treatments: Vec<Box<dyn Treatment<G>>> = G::treatments(&study.base);
        let players = G::new_game(&study.base)
            .map_err(|e| LabError::Config { settings: "defaults".into(), reason: e.to_string() })?
            .num_players();
        let entrants = entrants(players)?;
        let tallies = measure(&study.base, &entrants, &treatments, study.worth_seeds.clone(), study.threads, on_game)?;
        Some(WorthResult {
            method: G::TREATMENT.to_string(),
            config: serde_json::to_value(&study.base)
                .map_err(|e| LabError::Config { settings: "defaults".into(), reason: e.to_string() })?,
            treatments: tallies,
        })
    } else {
        None
    };
    let range = |r: &Range<u64>| if r.is_empty() { vec![] } else { vec![[r.start, r.end]] };
    Ok(LabResults {
        format: LAB_FORMAT.to_string(),
        engine: G::NAME.to_string(),
        rules_version: G::RULES_VERSION,
        lead_role: G::LEAD_ROLE.to_string(),
        agents: agent_names.unwrap_or_default(),
        sweeps: study.sweeps.clone(),
        seeds: range(&study.seeds),
        worth_seeds: if study.worth { range(&study.worth_seeds) } else { vec![] },
        cells: results,
        worth,
    })
}

/// A share in [`SHARE_UNIT`]s as a fraction.
pub fn units_to_share(units: u64, games: u64) -> f64 {
    if games == 0 { 0.0 } else { units as f64 / (games * SHARE_UNIT) as f64 }
}

/// `specs` stretched to `players` entrants: the last one fills the seats
/// left (`heuristic` alone fills every seat; `ismcts-h:500,heuristic` is one
/// search agent against heuristic ones). `make` builds an entrant from a
/// name.
///
/// # Errors
/// [`LabError::Agents`] when more agents than seats are listed or none.
pub fn entrants_for<G: Game, S: Clone>(
    specs: &[S],
    players: usize,
    make: &dyn Fn(&S) -> Result<Entrant<G>, LabError>,
) -> Result<Vec<Entrant<G>>, LabError> {
    let Some(last) = specs.last() else {
        return Err(LabError::Agents("no agent given".into()));
    };
    if specs.len() > players {
        return Err(LabError::Agents(format!("{} agents listed but the game has {players} seats", specs.len())));
    }
    (0..players).map(|i| make(specs.get(i).unwrap_or(last))).collect()
}
