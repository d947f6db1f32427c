//! Simulations over a seed range and their merge: the steps of
//! `boardgame simulate` and `boardgame merge`.
//!
//! Games are played by [`boardgame_kit::Arena`]: game `seed` is played from
//! that seed alone, with seat rotation, so the results are the same whatever
//! the number of threads, and a run over a seed range splits into shards
//! (disjoint seed ranges) whose JSON results add up exactly (every statistic
//! is an integer sum).

use std::collections::BTreeMap;
use std::sync::Mutex;

use boardgame_kit::{Arena, ArenaGame, ArenaReport, Entrant, EntrantStats, PlayError, SHARE_UNIT};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::SimError;
use crate::agents;
use crate::games::{Engine, GameName, build_config, seats_of, with_game};

/// The format tag of the JSON results.
pub const RESULTS_FORMAT: &str = "boardgame-simulate/1";

/// `I/K`: the I-th (from 0) of K shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

impl Shard {
    /// The `index`-th (from 0) of `count` shards.
    ///
    /// # Errors
    /// Unless `0 <= index < count`.
    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 || index >= count {
            return Err(format!("a shard is I/K with 0 <= I < K, got {index}/{count}"));
        }
        Ok(Shard { index, count })
    }
}

/// `I/K` as `--shard` takes it.
impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let err = || format!("expected I/K with 0 <= I < K (e.g. 0/4), got `{s}`");
        let (i, k) = s.split_once('/').ok_or_else(err)?;
        let index: u64 = i.trim().parse().map_err(|_| err())?;
        let count: u64 = k.trim().parse().map_err(|_| err())?;
        Shard::new(index, count).map_err(|_| err())
    }
}

/// One simulation: the arguments `boardgame simulate` takes for one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimSpec {
    /// The game.
    pub game: GameName,
    /// `--players`.
    pub players: Option<usize>,
    /// `--config` (a JSON object laid over the rules' defaults).
    pub config: Option<String>,
    /// `--games` (before sharding).
    pub games: u64,
    /// `--agents`, comma-separated.
    pub agents: String,
    /// `--seed`.
    pub seed: u64,
    /// `--threads` (results do not depend on it).
    pub threads: usize,
    /// `--shard I/K`.
    pub shard: Option<Shard>,
    /// `--fixed-seats`.
    pub fixed_seats: bool,
}

/// What a caller hears of a simulation while it runs (a progress bar):
/// every method is called from the worker threads' side, so it is `Sync`.
/// `()` hears nothing.
pub trait Progress: Sync {
    /// The arguments were checked and `games` games will be played.
    fn start(&self, games: u64) {
        let _ = games;
    }

    /// One more game was played.
    fn game(&self) {}
}

impl Progress for () {}

/// The most worker threads a simulation takes (`boardgame simulate
/// --threads`, and [`SimSpec::threads`] from the Python binding).
pub const MAX_THREADS: usize = 1024;

/// Plays the simulation `spec` and returns its results: what
/// `boardgame simulate --json` writes for the same arguments
/// ([`to_json`]).
///
/// # Errors
/// Usage errors for bad arguments (threads outside `1..=`[`MAX_THREADS`]
/// included), runtime errors when a game fails.
pub fn simulate_spec(spec: &SimSpec) -> Result<SimResults, SimError> {
    simulate_spec_with(spec, &())
}

/// [`simulate_spec`], telling `progress` of the games as they are played.
///
/// # Errors
/// As [`simulate_spec`].
pub fn simulate_spec_with(spec: &SimSpec, progress: &dyn Progress) -> Result<SimResults, SimError> {
    check_threads(spec.threads).map_err(SimError::Usage)?;
    with_game!(spec.game, G => simulate::<G>(spec, progress))
}

/// `threads` when it is in `1..=`[`MAX_THREADS`] (a simulation's and a
/// ladder's worker threads).
///
/// # Errors
/// A message saying the range, for any other count.
pub fn check_threads(threads: usize) -> Result<usize, String> {
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(format!("threads must be in 1..={MAX_THREADS}, got {threads}"));
    }
    Ok(threads)
}

/// The mergeable results of a simulation: integer sums only, plus what
/// identifies the experiment (engine, rules, config, agents, seeds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimResults {
    /// Always [`RESULTS_FORMAT`].
    pub format: String,
    /// The engine.
    pub engine: String,
    /// The engine's rules version.
    pub rules_version: u32,
    /// The full configuration.
    pub config: Value,
    /// The agents, in entrant order.
    pub agents: Vec<String>,
    /// Whether agents rotate through the seats.
    pub rotate_seats: bool,
    /// The seeds played, as sorted, disjoint, non-adjacent half-open ranges
    /// (128-bit: a range may end at 2^64, one past the last seed).
    pub seeds: Vec<[u128; 2]>,
    /// Games played.
    pub games: u64,
    /// Per agent (entrant), in `agents` order.
    pub by_agent: Vec<EntrantStats>,
    /// Per seat.
    pub by_seat: Vec<EntrantStats>,
    /// Sum of game lengths in actions (chance included).
    pub length_sum: u64,
    /// What `progress_sum` counts (turns, rounds).
    pub progress_unit: String,
    /// Sum of game lengths in `progress_unit`.
    pub progress_sum: u64,
    /// Games per kind of end, for engines that distinguish them.
    pub ends: BTreeMap<String, u64>,
}

#[derive(Default)]
struct Extra {
    by_seat: Vec<EntrantStats>,
    progress_sum: u64,
    ends: BTreeMap<String, u64>,
}

/// One past the last seed: seeds are `u64`, so a half-open range of them
/// may end at 2^64.
const SEED_END: u128 = 1 << 64;

/// The seed range of `shard` within `seed..seed + games`, half-open and
/// computed in 128 bits: `--seed 18446744073709551615 -n 1` is the range
/// `18446744073709551615..18446744073709551616`.
pub(crate) fn shard_range(seed: u64, games: u64, shard: Option<Shard>) -> Result<std::ops::Range<u128>, SimError> {
    let (start, games) = (u128::from(seed), u128::from(games));
    let end = start + games;
    if end > SEED_END {
        return Err(SimError::Usage(format!(
            "--seed {seed} plus --games {games} goes past the last seed {}",
            u64::MAX
        )));
    }
    let Some(Shard { index, count }) = shard else {
        return Ok(start..end);
    };
    let cut = |i: u64| start + games * u128::from(i) / u128::from(count);
    Ok(cut(index)..cut(index + 1))
}

/// Plays every seed of `seeds` (which may end at 2^64, past what a
/// `Range<u64>` holds: the last seed is then played on its own and added).
pub(crate) fn play_seeds<G: Engine>(
    arena: &Arena<G>,
    entrants: &[Entrant<G>],
    seeds: std::ops::Range<u128>,
    threads: usize,
    on_game: &(dyn Fn(&ArenaGame<G>) + Sync),
) -> Result<ArenaReport, PlayError<G::Error>> {
    let last = u128::from(u64::MAX);
    // `start <= u64::MAX` unless the range is empty at 2^64.
    let start = u64::try_from(seeds.start).unwrap_or(u64::MAX);
    let end = u64::try_from(seeds.end.min(last)).unwrap_or(u64::MAX);
    let end = end.max(start);
    // No more threads than seeds: a worker's first seed (`start + t`) stays
    // inside the range, never past `u64::MAX`.
    let threads = threads.min(usize::try_from(end - start).unwrap_or(usize::MAX)).max(1);
    let mut report = arena.run_with(entrants, start..end, threads, on_game)?;
    if seeds.start <= last && seeds.end > last {
        let game = arena.play_one(entrants, u64::MAX)?;
        on_game(&game);
        let outcome = game.state.outcome();
        for (stats, &seat) in report.entrants.iter_mut().zip(&game.seat_of) {
            stats.record(outcome, seat, game.state.score(seat));
        }
        report.games += 1;
        report.length_sum += game.length as u64;
    }
    Ok(report)
}

fn simulate<G: Engine>(args: &SimSpec, progress: &dyn Progress) -> Result<SimResults, SimError> {
    let config = build_config::<G>(args.players, args.config.as_deref())?;
    let seats = seats_of::<G>(&config);
    let specs = agents::fit(&agents::parse_list(&args.agents)?, seats, "the game has")?;
    let entrants = specs.iter().map(|s| agents::entrant::<G>(s.clone())).collect::<Result<Vec<_>, _>>()?;
    let seeds = shard_range(args.seed, args.games, args.shard)?;
    let arena = Arena::<G>::new(config.clone()).rotate_seats(!args.fixed_seats);

    progress.start(u64::try_from(seeds.end - seeds.start).unwrap_or(u64::MAX));
    let extra = Mutex::new(Extra {
        by_seat: (0..seats).map(|s| EntrantStats { name: format!("seat {s}"), ..Default::default() }).collect(),
        progress_sum: 0,
        ends: G::END_KINDS.iter().map(|k| (k.to_string(), 0)).collect(),
    });
    let on_game = |game: &ArenaGame<G>| {
        tally(&extra, &game.state, seats);
        progress.game();
    };
    let report = play_seeds(&arena, &entrants, seeds.clone(), args.threads.max(1), &on_game)
        .map_err(|e| SimError::Runtime(format!("{}: {e}", G::CLI_NAME)))?;
    let extra = extra.into_inner().unwrap_or_else(|p| p.into_inner());

    Ok(SimResults {
        format: RESULTS_FORMAT.to_string(),
        engine: G::CLI_NAME.to_string(),
        rules_version: G::RULES_VERSION,
        config: serde_json::to_value(&config).map_err(|e| SimError::Runtime(e.to_string()))?,
        agents: specs.iter().map(ToString::to_string).collect(),
        rotate_seats: !args.fixed_seats,
        seeds: if seeds.is_empty() { vec![] } else { vec![[seeds.start, seeds.end]] },
        games: report.games,
        by_agent: report.entrants,
        by_seat: extra.by_seat,
        length_sum: report.length_sum,
        progress_unit: G::PROGRESS_UNIT.to_string(),
        progress_sum: extra.progress_sum,
        ends: extra.ends,
    })
}

fn tally<G: Engine>(extra: &Mutex<Extra>, state: &G, seats: usize) {
    let outcome = state.outcome();
    let progress = state.progress();
    let end = state.end_kind();
    let mut x = extra.lock().unwrap_or_else(|p| p.into_inner());
    for (seat, stats) in x.by_seat.iter_mut().enumerate().take(seats) {
        stats.record(outcome, seat, state.score(seat));
    }
    x.progress_sum += progress;
    if let Some(kind) = end {
        *x.ends.entry(kind.to_string()).or_default() += 1;
    }
}

/// `r` as the JSON text `simulate --json` and `merge --json` print
/// (`docs/simulate-json.md`): the fields of [`SimResults`], and beside them
/// what is derived from its sums — each row's `share` (its mean win share,
/// a float: `share_units / (games × SHARE_UNIT)`) and `by_name`, the rows
/// of [`by_name`]. The derived fields are written, never read: a merge
/// reads the integer sums and writes them again.
pub fn to_json(r: &SimResults) -> String {
    // Every field, in the order of the struct (the destructuring does not
    // compile when a field is added and not written here).
    let SimResults {
        format,
        engine,
        rules_version,
        config,
        agents,
        rotate_seats,
        seeds,
        games,
        by_agent,
        by_seat,
        length_sum,
        progress_unit,
        progress_sum,
        ends,
    } = r;
    let rows = |rows: &[EntrantStats]| -> Vec<Row> {
        rows.iter().map(|e| Row { stats: e.clone(), entrants: None, share: e.win_share() }).collect()
    };
    let names = by_name(r)
        .into_iter()
        .map(|g| Row { share: g.stats.win_share(), entrants: Some(g.entrants), stats: g.stats })
        .collect();
    let written = Written {
        format,
        engine,
        rules_version: *rules_version,
        config,
        agents,
        rotate_seats: *rotate_seats,
        seeds,
        games: *games,
        by_agent: rows(by_agent),
        by_seat: rows(by_seat),
        by_name: names,
        length_sum: *length_sum,
        progress_unit,
        progress_sum: *progress_sum,
        ends,
    };
    serde_json::to_string_pretty(&written).unwrap_or_default()
}

/// What [`to_json`] writes: [`SimResults`] with the derived fields.
#[derive(Serialize)]
struct Written<'a> {
    format: &'a str,
    engine: &'a str,
    rules_version: u32,
    config: &'a Value,
    agents: &'a [String],
    rotate_seats: bool,
    seeds: &'a [[u128; 2]],
    games: u64,
    by_agent: Vec<Row>,
    by_seat: Vec<Row>,
    by_name: Vec<Row>,
    length_sum: u64,
    progress_unit: &'a str,
    progress_sum: u64,
    ends: &'a BTreeMap<String, u64>,
}

/// A row as written: its sums, then (for a `by_name` row) how many
/// entrants it pools, then its mean win share.
#[derive(Serialize)]
struct Row {
    #[serde(flatten)]
    stats: EntrantStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    entrants: Option<usize>,
    share: f64,
}

/// The per-agent rows of one agent name, pooled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameStats {
    /// How many entrants carry the name.
    pub entrants: usize,
    /// Their rows added up (`games` counts entrant-games: `entrants × games`).
    pub stats: EntrantStats,
}

/// The per-agent rows grouped by agent name, in the order each name first
/// appears: `heuristic,random` in a 5-player game gives `heuristic` (1
/// entrant) and `random` (4 entrants, their 4 rows added up). The mean win
/// share of a group is that of one of its entrants' seats, averaged.
pub fn by_name(r: &SimResults) -> Vec<NameStats> {
    let mut groups: Vec<NameStats> = Vec::new();
    for e in &r.by_agent {
        match groups.iter_mut().find(|g| g.stats.name == e.name) {
            Some(g) => {
                g.entrants += 1;
                g.stats.merge(e);
            }
            None => groups.push(NameStats { entrants: 1, stats: e.clone() }),
        }
    }
    groups
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn mean(sum: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { sum as f64 / n as f64 }
}

/// The human-readable table of `r`.
pub fn table(r: &SimResults) -> String {
    let players = r.by_seat.len();
    let ranges: Vec<String> = r.seeds.iter().map(|[a, b]| format!("{a}..{b}")).collect();
    let mut s = format!(
        "{} · {players} players · {} games · seeds {} · {}\n",
        r.engine,
        r.games,
        if ranges.is_empty() { "none".to_string() } else { ranges.join(", ") },
        if r.rotate_seats { "agents rotate seats" } else { "fixed seats" }
    );
    // the rows by agent name, shown when a name repeats
    let names = by_name(r);
    let repeated = names.iter().any(|g| g.entrants > 1);
    let pooled: &[NameStats] = if repeated { &names } else { &[] };
    let labels: Vec<String> = r
        .by_agent
        .iter()
        .enumerate()
        .map(|(i, e)| format!("  {i}: {}", e.name))
        .chain(r.by_seat.iter().map(|e| format!("  {}", e.name)))
        .chain(pooled.iter().map(|g| format!("  {} ×{}", g.stats.name, g.entrants)))
        .collect();
    let w = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0).max(10);
    let row = |label: &str, e: &EntrantStats| {
        let (lo, hi) = e.win_interval();
        format!(
            "{label:<w$} {:>7} {:>7} {:>7} {:>9}  {:<16} {:>9}  {:<16} {:>10.2}\n",
            e.games,
            e.wins,
            e.draws,
            pct(e.win_rate()),
            format!("[{}, {}]", pct(lo), pct(hi)),
            pct(e.win_share()),
            {
                let (lo, hi) = e.win_share_interval();
                format!("[{}, {}]", pct(lo), pct(hi))
            },
            e.mean_score()
        )
    };
    s.push_str(&format!(
        "{:<w$} {:>7} {:>7} {:>7} {:>9}  {:<16} {:>9}  {:<16} {:>10}\n",
        "by agent", "games", "wins", "draws", "win rate", "95% interval", "share", "95% interval", "mean score"
    ));
    let (agent_labels, rest) = labels.split_at(r.by_agent.len());
    let seat_labels = &rest[..r.by_seat.len().min(rest.len())];
    for (label, e) in agent_labels.iter().zip(&r.by_agent) {
        s.push_str(&row(label, e));
    }
    if repeated {
        s.push_str("by name\n");
        for g in pooled {
            s.push_str(&row(&format!("  {} ×{}", g.stats.name, g.entrants), &g.stats));
        }
    }
    s.push_str("by seat\n");
    for (label, e) in seat_labels.iter().zip(&r.by_seat) {
        s.push_str(&row(label, e));
    }
    s.push_str(&format!(
        "mean length: {:.1} actions (chance included), {:.1} {}\n",
        mean(r.length_sum, r.games),
        mean(r.progress_sum, r.games),
        r.progress_unit
    ));
    if repeated {
        s.push_str(&seats_note(r));
    }
    if !r.ends.is_empty() {
        let show = |(k, n): (&String, &u64)| format!("{k} {n} ({})", pct(mean(*n, r.games)));
        let guards: Vec<String> = r.ends.iter().filter(|(k, _)| *k != "natural").map(show).collect();
        match r.ends.get_key_value("natural") {
            Some(natural) => s.push_str(&format!("ends: {}; guard ends: {}\n", show(natural), guards.join(", "))),
            None => s.push_str(&format!("ends: {}\n", guards.join(", "))),
        }
    }
    s
}

/// The note under a table where several entrants carry one agent name: why
/// their rows differ although the agents are the same.
fn seats_note(r: &SimResults) -> String {
    let n = r.by_seat.len();
    if r.rotate_seats {
        let first = r.agents.first().map_or("", String::as_str);
        let next = r.agents.get(1).map_or("", String::as_str);
        format!(
            "note: seats rotate in step (agent i plays seat (i + seed) mod {n}): every agent plays every seat \
             as often, but always in the same seats relative to the others (agent 1, {next}, always sits in the \
             seat after agent 0, {first}), so rows of one name differ by that position (and chance), not by \
             skill; `by name` pools them\n"
        )
    } else {
        "note: fixed seats (agent i always plays seat i): rows of one name differ by the advantage of their \
         seats (and chance), not by skill; `by name` pools them\n"
            .to_string()
    }
}

/// Checks that `r` is a result `simulate` could have written: sorted,
/// disjoint, non-empty seed ranges within the seed space that hold exactly
/// `games` seeds; one per-agent row per agent (named as the agent) and one
/// per-seat row per agent (one agent per seat); every row counting every
/// game, with no more wins and draws than games, win shares within their
/// bound, at most one sole winner per game, and no more ends than games.
///
/// # Errors
/// A message naming the first inconsistency.
pub fn check_results(r: &SimResults) -> Result<(), String> {
    if r.format != RESULTS_FORMAT {
        return Err(format!("results format `{}`, expected `{RESULTS_FORMAT}`", r.format));
    }
    let mut seeds: u128 = 0;
    let mut previous: Option<[u128; 2]> = None;
    for &[a, b] in &r.seeds {
        if a >= b {
            let what = if a == b { "empty" } else { "inverted" };
            return Err(format!("the seed range {a}..{b} is {what}"));
        }
        if b > SEED_END {
            return Err(format!("the seed range {a}..{b} goes past the last seed {}", u64::MAX));
        }
        if let Some([p, q]) = previous
            && a < q
        {
            return Err(format!("the seed ranges {p}..{q} and {a}..{b} overlap or are out of order"));
        }
        previous = Some([a, b]);
        seeds += b - a;
    }
    if seeds != u128::from(r.games) {
        return Err(format!("{} games, but the seed ranges hold {seeds} seeds", r.games));
    }
    let agents = r.agents.len();
    if agents == 0 {
        return Err("no agents".into());
    }
    if r.by_agent.len() != agents {
        return Err(format!("{agents} agents but {} per-agent rows", r.by_agent.len()));
    }
    if r.by_seat.len() != agents {
        return Err(format!("{agents} agents (one per seat) but {} per-seat rows", r.by_seat.len()));
    }
    let labels = r.agents.iter().map(String::as_str).map(str::to_string);
    let seat_labels = (0..agents).map(|s| format!("seat {s}"));
    for (label, e) in labels.chain(seat_labels).zip(r.by_agent.iter().chain(&r.by_seat)) {
        if e.name != label {
            return Err(format!("the row `{}` stands where `{label}` should", e.name));
        }
        if e.games != r.games {
            return Err(format!("`{label}` played {} games of {}", e.games, r.games));
        }
        if e.wins.checked_add(e.draws).is_none_or(|n| n > e.games) {
            return Err(format!("`{label}` has {} wins and {} draws in {} games", e.wins, e.draws, e.games));
        }
        if e.games.checked_mul(SHARE_UNIT).is_none_or(|max| e.share_units > max) {
            return Err(format!(
                "`{label}` has {} win-share units, more than {} games can give",
                e.share_units, e.games
            ));
        }
    }
    for (what, rows) in [("agents", &r.by_agent), ("seats", &r.by_seat)] {
        let wins = rows.iter().try_fold(0u64, |sum, e| sum.checked_add(e.wins));
        if wins.is_none_or(|w| w > r.games) {
            return Err(format!("the {what} win more games alone than the {} played", r.games));
        }
    }
    let ends = r.ends.values().try_fold(0u64, |sum, &n| sum.checked_add(n));
    if ends.is_none_or(|n| n > r.games) {
        return Err(format!("more ends than the {} games played", r.games));
    }
    Ok(())
}

/// The field every kind of results has (`simulate`'s, `ladder`'s).
#[derive(Deserialize)]
struct FormatTag {
    format: String,
}

/// The format tag of a JSON text of results ([`RESULTS_FORMAT`],
/// [`crate::ladder::LADDER_FORMAT`], …), read without keeping the rest.
///
/// # Errors
/// When the text is not JSON or not an object with a string `format`.
pub fn format_of(text: &str) -> Result<String, String> {
    serde_json::from_str::<FormatTag>(text).map(|t| t.format).map_err(|e| e.to_string())
}

/// The results of a `simulate --json` text, checked ([`check_results`]).
///
/// # Errors
/// When `text` is not such results, or they are inconsistent.
pub fn parse_results(text: &str) -> Result<SimResults, String> {
    let r: SimResults = serde_json::from_str(text).map_err(|e| format!("not simulate --json results: {e}"))?;
    check_results(&r)?;
    Ok(r)
}

/// `a + b`, or an error naming `what` when the sum overflows.
fn sum(a: u64, b: u64, what: &str) -> Result<u64, String> {
    a.checked_add(b).ok_or_else(|| format!("the merged {what} overflows 64 bits"))
}

/// `x` and `y` (rows of the same entrant or seat) added, checked.
fn add_stats(x: &EntrantStats, y: &EntrantStats) -> Result<EntrantStats, String> {
    let what = |field: &str| format!("{field} of `{}`", x.name);
    Ok(EntrantStats {
        name: x.name.clone(),
        games: sum(x.games, y.games, &what("games"))?,
        wins: sum(x.wins, y.wins, &what("wins"))?,
        draws: sum(x.draws, y.draws, &what("draws"))?,
        score_sum: x
            .score_sum
            .checked_add(y.score_sum)
            .ok_or_else(|| format!("the merged {} overflows 64 bits", what("score sum")))?,
        share_units: sum(x.share_units, y.share_units, &what("win shares"))?,
    })
}

/// Adds `other` into `acc` (left unchanged on error): both must be of the
/// same experiment and pass [`check_results`], every sum is checked
/// arithmetic, and the result is checked again.
///
/// # Errors
/// When either result is inconsistent, the two are not of the same
/// experiment, their seed ranges overlap, or a sum overflows.
pub fn merge_into(acc: &mut SimResults, other: &SimResults) -> Result<(), String> {
    let same = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| -> Result<(), String> {
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        if a == b { Ok(()) } else { Err(format!("cannot merge results with different {what}: {a} vs {b}")) }
    };
    same("formats", &acc.format, &other.format)?;
    same("engines", &acc.engine, &other.engine)?;
    same("rules versions", &acc.rules_version, &other.rules_version)?;
    same("configs", &acc.config.to_string(), &other.config.to_string())?;
    same("agents", &acc.agents, &other.agents)?;
    same("seat rotation", &acc.rotate_seats, &other.rotate_seats)?;
    same("progress units", &acc.progress_unit, &other.progress_unit)?;
    same("player counts", &acc.by_seat.len(), &other.by_seat.len())?;
    same("agent counts", &acc.by_agent.len(), &other.by_agent.len())?;
    same("kinds of end", &acc.ends.keys().collect::<Vec<_>>(), &other.ends.keys().collect::<Vec<_>>())?;
    check_results(acc)?;
    check_results(other)?;
    for a in &acc.seeds {
        for b in &other.seeds {
            if a[0] < b[1] && b[0] < a[1] {
                return Err(format!(
                    "the seed ranges {}..{} and {}..{} overlap: the same games would count twice",
                    a[0], a[1], b[0], b[1]
                ));
            }
        }
    }
    let mut merged = acc.clone();
    let rows = |x: &[EntrantStats], y: &[EntrantStats]| -> Result<Vec<EntrantStats>, String> {
        x.iter().zip(y).map(|(x, y)| add_stats(x, y)).collect()
    };
    merged.by_agent = rows(&acc.by_agent, &other.by_agent)?;
    merged.by_seat = rows(&acc.by_seat, &other.by_seat)?;
    merged.games = sum(acc.games, other.games, "game count")?;
    merged.length_sum = sum(acc.length_sum, other.length_sum, "length sum")?;
    merged.progress_sum = sum(acc.progress_sum, other.progress_sum, "progress sum")?;
    for (k, n) in &other.ends {
        let slot = merged.ends.entry(k.clone()).or_default();
        *slot = sum(*slot, *n, &format!("count of {k} ends"))?;
    }
    merged.seeds = join_ranges(acc.seeds.iter().chain(&other.seeds).copied().collect());
    check_results(&merged)?;
    *acc = merged;
    Ok(())
}

/// Disjoint half-open seed ranges, sorted, with ranges that touch joined
/// (`0..4` and `4..8` are `0..8`).
pub(crate) fn join_ranges(mut seeds: Vec<[u128; 2]>) -> Vec<[u128; 2]> {
    seeds.sort_unstable();
    let mut ranges: Vec<[u128; 2]> = Vec::with_capacity(seeds.len());
    for r in seeds {
        match ranges.last_mut() {
            Some(last) if last[1] == r[0] => last[1] = r[1],
            _ => ranges.push(r),
        }
    }
    ranges
}

/// Merges every result of `texts` (JSON of [`to_json`]) as `boardgame
/// merge --json` does, into the JSON of the sum.
///
/// # Errors
/// A usage error naming the first result that is malformed or does not
/// merge ([`merge_text`]), or for no results.
pub fn merge_texts<S: AsRef<str>>(texts: &[S]) -> Result<String, SimError> {
    let mut acc: Option<SimResults> = None;
    for (i, text) in texts.iter().enumerate() {
        merge_text(&mut acc, text.as_ref()).map_err(|e| SimError::Usage(format!("result {i}: {e}")))?;
    }
    acc.map(|r| to_json(&r)).ok_or_else(|| SimError::Usage("no results to merge".to_string()))
}

/// Adds the results of a `simulate --json` text to `acc` (parsed and
/// checked, [`parse_results`]; merged, [`merge_into`]; the first text
/// starts the sum): the step of `boardgame merge` and of the Python
/// binding's `merge_results`.
///
/// # Errors
/// When `text` is not such results, or they do not merge with `acc`.
pub fn merge_text(acc: &mut Option<SimResults>, text: &str) -> Result<(), String> {
    let r = parse_results(text)?;
    match acc {
        None => *acc = Some(r),
        Some(a) => merge_into(a, &r)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_seed_range() {
        for games in [0u64, 1, 7, 100, 1001] {
            for k in 1..=5u64 {
                let mut next = 3;
                for i in 0..k {
                    let r = shard_range(3, games, Some(Shard { index: i, count: k })).unwrap();
                    assert_eq!(r.start, next, "shards are contiguous");
                    next = r.end;
                }
                assert_eq!(next, u128::from(3 + games), "shards cover every game");
            }
        }
        assert!(shard_range(u64::MAX, 2, None).is_err());
    }

    #[test]
    fn shard_notation() {
        assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "0/0", "1", "a/b", "-1/3", "1/4/5"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    fn results(seeds: [u64; 2], wins: u64) -> SimResults {
        let stats = |name: &str| EntrantStats {
            name: name.into(),
            games: seeds[1] - seeds[0],
            wins,
            draws: 1,
            score_sum: 5,
            share_units: 0,
        };
        SimResults {
            format: RESULTS_FORMAT.into(),
            engine: "nim".into(),
            rules_version: 1,
            config: serde_json::json!({"stones": 5}),
            agents: vec!["random".into(), "random".into()],
            rotate_seats: true,
            seeds: vec![seeds.map(u128::from)],
            games: seeds[1] - seeds[0],
            by_agent: vec![stats("random"), stats("random")],
            by_seat: vec![stats("seat 0"), stats("seat 1")],
            length_sum: 10,
            progress_unit: "turns".into(),
            progress_sum: 4,
            ends: BTreeMap::from([("natural".to_string(), 1)]),
        }
    }

    /// The JSON adds, beside the sums, each row's `share` and the rows by
    /// agent name; it reads back (the derived fields ignored) to the same
    /// results, and results written before those fields existed read too.
    #[test]
    fn the_json_adds_shares_and_rows_by_name_and_reads_back() {
        let mut r = results([0, 10], 3);
        r.agents = vec!["heuristic".into(), "random".into(), "random".into()];
        r.by_agent = ["heuristic", "random", "random"]
            .iter()
            .zip([5, 2, 3])
            .map(|(name, wins)| EntrantStats {
                name: (*name).into(),
                games: 10,
                wins,
                draws: 0,
                score_sum: 7,
                share_units: wins * SHARE_UNIT,
            })
            .collect();
        r.by_seat.push(EntrantStats { name: "seat 2".into(), ..r.by_seat[0].clone() });
        let text = to_json(&r);
        assert!(text.starts_with("{\n  \"format\": \"boardgame-simulate/1\""), "{text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let shares: Vec<f64> = v["by_agent"].as_array().unwrap().iter().map(|e| e["share"].as_f64().unwrap()).collect();
        assert_eq!(shares, [0.5, 0.2, 0.3]);
        assert_eq!(v["by_agent"][1]["share_units"], 2 * SHARE_UNIT);
        assert!(v["by_agent"][0].get("entrants").is_none());
        assert_eq!(v["by_seat"][0]["share"], 0.0);
        let names = v["by_name"].as_array().unwrap();
        assert_eq!(names.len(), 2);
        assert_eq!((names[0]["name"].as_str(), names[0]["entrants"].as_u64()), (Some("heuristic"), Some(1)));
        assert_eq!((names[1]["name"].as_str(), names[1]["entrants"].as_u64()), (Some("random"), Some(2)));
        assert_eq!((names[1]["games"].as_u64(), names[1]["wins"].as_u64()), (Some(20), Some(5)));
        assert_eq!(names[1]["share_units"], 5 * SHARE_UNIT);
        assert_eq!(names[1]["share"], 0.25);
        // read back: the derived fields are ignored, the sums are the same
        assert_eq!(parse_results(&text).unwrap(), r);
        // results written before `share` and `by_name` existed
        let old = serde_json::to_string(&r).unwrap();
        assert!(!old.contains("by_name") && !old.contains("\"share\""));
        assert_eq!(parse_results(&old).unwrap(), r);
        // the table pools them too, and says why rows of one name differ
        let t = table(&r);
        assert!(t.contains("by name\n") && t.contains("  random ×2 "), "{t}");
        assert!(t.contains("note: seats rotate in step (agent i plays seat (i + seed) mod 3)"), "{t}");
        assert!(t.contains("(agent 1, random, always sits in the seat after agent 0, heuristic)"), "{t}");
        r.rotate_seats = false;
        assert!(table(&r).contains("note: fixed seats (agent i always plays seat i)"), "{}", table(&r));
        r.agents[2] = "flatmc:5".into();
        r.by_agent[2].name = "flatmc:5".into();
        let t = table(&r);
        assert!(!t.contains("by name") && !t.contains("note:"), "{t}");
    }

    #[test]
    fn merging_adds_sums_and_joins_adjacent_ranges() {
        let mut acc = results([10, 20], 3);
        merge_into(&mut acc, &results([0, 10], 2)).unwrap();
        assert_eq!(acc.seeds, vec![[0, 20]]);
        assert_eq!((acc.games, acc.length_sum, acc.progress_sum), (20, 20, 8));
        assert_eq!((acc.by_agent[0].wins, acc.by_seat[1].draws, acc.ends["natural"]), (5, 2, 2));
        merge_into(&mut acc, &results([30, 40], 0)).unwrap();
        assert_eq!(acc.seeds, vec![[0, 20], [30, 40]]);
        let err = merge_into(&mut acc, &results([35, 36], 0)).unwrap_err();
        assert!(err.contains("overlap"), "{err}");
        let mut other = results([50, 60], 0);
        other.agents[1] = "ismcts:5".into();
        assert!(merge_into(&mut acc, &other).unwrap_err().contains("different agents"));
    }
}
