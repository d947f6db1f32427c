//! A rating ladder: many agents rated against each other at each player
//! count, with intervals (`boardgame ladder`).
//!
//! **The games.** With `k` agents and `n` seats, every deal (a seed) is
//! played once by each *lineup* ([`lineups`]): for strides `s = 1, 2, …`
//! the agents `w, w+s, …, w+(n−1)s` (mod `k`), `w = 0 … k−1`, until every
//! two agents have met at a table; each is seated by the arena's rotation
//! ([`boardgame_kit::Arena::seat_of`]). So every agent meets the same deals
//! and every other agent, and sits at each of the table's positions. With
//! fewer agents than seats an agent fills several seats of a table; it is
//! never compared with itself.
//!
//! **The ratings.** Each game is read as pairwise results between the
//! agents at the table, by win share (a sole win is 1, a draw among `j`
//! winners `1/j` each, as `simulate` counts it): a winner beats every seat
//! that did not win, winners who share the win draw with each other, and
//! two seats that both lost are not compared. Bradley–Terry strengths are
//! fitted by maximum likelihood over all those results at once, with one
//! virtual draw of every agent against a fixed reference (so that an agent
//! that won or lost everything still has a finite rating). A rating is
//! `400 · log10(strength)` Elo, shifted so that the agents' mean is 0; its
//! 95% interval is ±1.96 standard errors from the fit's information
//! matrix. Why Bradley–Terry over all games rather than sequential updates
//! (Elo, Weng–Lin, TrueSkill): its statistics are integer sums, so shards
//! merge exactly and the result does not depend on the order of the games
//! or the number of threads; and one fit over all games uses every game
//! equally. The pairs of one game are not independent, so the intervals are
//! somewhat narrower than the truth: a claim that A is stronger than B is
//! made with [`crate::sprt`].

use std::sync::Mutex;

use boardgame_kit::{Arena, ArenaGame, Entrant, EntrantStats, Game, share_units};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::SimError;
use crate::agents;
use crate::games::{Engine, GameName, build_config, with_game};
use crate::simulate::{Shard, join_ranges, play_seeds, shard_range};

/// The format tag of a ladder's JSON.
pub const LADDER_FORMAT: &str = "boardgame-ladder/1";

/// z of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// One ladder (or one shard of it): what `boardgame ladder` takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LadderSpec {
    /// The game.
    pub game: GameName,
    /// The player counts to rate at (each a separate table of ratings).
    pub players: Vec<usize>,
    /// A JSON object laid over the rules' defaults (`--config`).
    pub config: Option<String>,
    /// The agents, comma-separated (at least two).
    pub agents: String,
    /// Deals per player count (each played once by every lineup).
    pub deals: u64,
    /// The first deal's seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// This shard of the deals, or all of them.
    pub shard: Option<Shard>,
}

/// The tallies at one player count: integer sums, so shards merge exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountTally {
    /// Seats at the table.
    pub players: usize,
    /// The configuration played.
    pub config: Value,
    /// Games played (deals × lineups).
    pub games: u64,
    /// Per agent, in the ladder's order: games (one per seat it filled),
    /// wins, draws, score sums and win shares.
    pub by_agent: Vec<EntrantStats>,
    /// `points[a][b]`: twice the games `a` beat `b`, plus the games they
    /// drew (both won); `a`'s half-points against `b`.
    pub points: Vec<Vec<u64>>,
}

/// A ladder's results (or one shard's): the tallies per player count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderResults {
    /// [`LADDER_FORMAT`].
    pub format: String,
    /// The game's command-line name.
    pub engine: String,
    /// The engine's rules version.
    pub rules_version: u32,
    /// The agents' names, in order.
    pub agents: Vec<String>,
    /// The deal seeds played, as half-open ranges (128-bit: a range may end
    /// at 2^64).
    pub seeds: Vec<[u128; 2]>,
    /// One tally per player count.
    pub counts: Vec<CountTally>,
}

/// One agent's rating at one player count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The agent.
    pub agent: String,
    /// Elo, the agents' mean 0.
    pub elo: f64,
    /// The 95% interval of [`Rating::elo`].
    pub elo_interval: [f64; 2],
    /// Mean win share per seat filled (ties split).
    pub share: f64,
    /// Its 95% Wilson interval.
    pub share_interval: [f64; 2],
    /// The fair share, `1/players`.
    pub fair_share: f64,
    /// Seats filled (games, counted once per seat).
    pub games: u64,
}

/// The lineups of `k` agents at `n` seats (indices into the ladder's list),
/// until every two agents have met: for strides `s = 1, 2, …`, the `k`
/// windows `w, w+s, …, w+(n−1)s` (mod `k`), a stride kept only when its
/// windows seat `n` different agents and bring two agents together who had
/// not met. Every stride seats each agent once at each position. With fewer
/// agents than seats, the windows of stride 1 (agents repeat at a table).
pub fn lineups(k: usize, n: usize) -> Vec<Vec<usize>> {
    let k = k.max(1);
    let window = |w: usize, s: usize| -> Vec<usize> { (0..n).map(|j| (w + j * s) % k).collect() };
    if k < n {
        return (0..k).map(|w| window(w, 1)).collect();
    }
    let mut met = vec![vec![false; k]; k];
    let mut out = Vec::new();
    for s in 1..k.max(2) {
        let windows: Vec<Vec<usize>> = (0..k).map(|w| window(w, s)).collect();
        let distinct = windows.iter().all(|l| (0..n).all(|i| !l[..i].contains(&l[i])));
        let new = windows.iter().any(|l| l.iter().any(|&a| l.iter().any(|&b| a != b && !met[a][b])));
        if !distinct || !new {
            continue;
        }
        for l in &windows {
            for &a in l {
                for &b in l {
                    met[a][b] = true;
                }
            }
        }
        out.extend(windows);
        if (0..k).all(|a| (0..k).all(|b| a == b || met[a][b])) {
            break;
        }
    }
    out
}

/// Counts one finished game of `lineup` into `tally`.
fn count_game<G: Game>(tally: &mut CountTally, lineup: &[usize], game: &ArenaGame<G>) {
    let outcome = game.state.outcome();
    let shares: Vec<u64> = game.seat_of.iter().map(|&seat| share_units(outcome, seat)).collect();
    tally.games += 1;
    for (e, &agent) in lineup.iter().enumerate() {
        let seat = game.seat_of[e];
        tally.by_agent[agent].record(outcome, seat, game.state.score(seat));
    }
    for (i, &a) in lineup.iter().enumerate() {
        for (j, &b) in lineup.iter().enumerate().skip(i + 1) {
            if a == b {
                continue;
            }
            let (sa, sb) = (shares[i], shares[j]);
            if sa > sb {
                tally.points[a][b] += 2;
            } else if sb > sa {
                tally.points[b][a] += 2;
            } else if sa > 0 {
                tally.points[a][b] += 1;
                tally.points[b][a] += 1;
            }
        }
    }
}

/// Plays a ladder (or one shard of it).
///
/// # Errors
/// A usage error for bad arguments (fewer than two agents, an unknown
/// agent, no player count or one listed twice, a player count the game
/// does not allow, a seed range past the last seed, threads outside
/// `1..=`[`crate::simulate::MAX_THREADS`]), a runtime error when an engine
/// refuses a move.
pub fn run_ladder(spec: &LadderSpec, progress: &dyn crate::simulate::Progress) -> Result<LadderResults, SimError> {
    crate::simulate::check_threads(spec.threads).map_err(SimError::Usage)?;
    with_game!(spec.game, G => ladder::<G>(spec, progress))
}

fn ladder<G: Engine>(spec: &LadderSpec, progress: &dyn crate::simulate::Progress) -> Result<LadderResults, SimError> {
    let specs = agents::parse_list(&spec.agents)?;
    if specs.len() < 2 {
        return Err(SimError::Usage(format!("a ladder needs at least two agents, got {}", specs.len())));
    }
    let names: Vec<String> = specs.iter().map(ToString::to_string).collect();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(SimError::Usage(format!("agent `{name}` is listed twice")));
        }
    }
    if spec.players.is_empty() {
        return Err(SimError::Usage("give at least one player count".into()));
    }
    for (i, n) in spec.players.iter().enumerate() {
        if spec.players[..i].contains(n) {
            return Err(SimError::Usage(format!("the player count {n} is listed twice")));
        }
    }
    for s in &specs {
        agents::entrant::<G>(s.clone())?;
    }
    let seeds = shard_range(spec.seed, spec.deals, spec.shard)?;
    let configs = spec
        .players
        .iter()
        .map(|&n| build_config::<G>(Some(n), spec.config.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    let k = specs.len();
    let deals = u64::try_from(seeds.end - seeds.start).unwrap_or(u64::MAX);
    let plans: Vec<Vec<Vec<usize>>> = spec.players.iter().map(|&n| lineups(k, n)).collect();
    let tables: u64 = plans.iter().map(|p| p.len() as u64).sum();
    progress.start(deals.saturating_mul(tables));
    let mut counts = Vec::new();
    for ((config, &n), plan) in configs.into_iter().zip(&spec.players).zip(plans) {
        let tally = Mutex::new(CountTally {
            players: n,
            config: serde_json::to_value(&config).map_err(|e| SimError::Runtime(e.to_string()))?,
            games: 0,
            by_agent: names.iter().map(|name| EntrantStats { name: name.clone(), ..Default::default() }).collect(),
            points: vec![vec![0; k]; k],
        });
        let arena = Arena::<G>::new(config);
        for lineup in plan {
            let table: Vec<Entrant<G>> =
                lineup.iter().map(|&a| agents::entrant::<G>(specs[a].clone())).collect::<Result<_, _>>()?;
            let on_game = |game: &ArenaGame<G>| {
                count_game(&mut tally.lock().unwrap_or_else(|p| p.into_inner()), &lineup, game);
                progress.game();
            };
            play_seeds(&arena, &table, seeds.clone(), spec.threads.max(1), &on_game)
                .map_err(|e| SimError::Runtime(format!("{}: {e}", G::CLI_NAME)))?;
        }
        counts.push(tally.into_inner().unwrap_or_else(|p| p.into_inner()));
    }
    Ok(LadderResults {
        format: LADDER_FORMAT.to_string(),
        engine: G::CLI_NAME.to_string(),
        rules_version: G::RULES_VERSION,
        agents: names,
        seeds: if seeds.is_empty() { vec![] } else { vec![[seeds.start, seeds.end]] },
        counts,
    })
}

/// Adds the shard `other` into `acc`.
///
/// # Errors
/// When they are of different games, rules, agents, player counts or
/// configurations, or their seed ranges overlap (the message says which).
pub fn merge(acc: &mut LadderResults, other: &LadderResults) -> Result<(), String> {
    if other.format != LADDER_FORMAT {
        return Err(format!("not a ladder of format {LADDER_FORMAT} (format `{}`)", other.format));
    }
    if (&acc.engine, acc.rules_version) != (&other.engine, other.rules_version) {
        return Err(format!(
            "different games: {} (rules {}) and {} (rules {})",
            acc.engine, acc.rules_version, other.engine, other.rules_version
        ));
    }
    if acc.agents != other.agents {
        return Err(format!("different agents: {} and {}", acc.agents.join(","), other.agents.join(",")));
    }
    let shape = |r: &LadderResults| r.counts.iter().map(|c| (c.players, c.config.clone())).collect::<Vec<_>>();
    if shape(acc) != shape(other) {
        return Err("different player counts or configurations".into());
    }
    for [s, e] in &other.seeds {
        if acc.seeds.iter().any(|[a, b]| s < b && a < e) {
            return Err(format!("the seeds {s}..{e} were already counted"));
        }
    }
    let mut sum = acc.clone();
    for (a, b) in sum.counts.iter_mut().zip(&other.counts) {
        if b.by_agent.len() != a.by_agent.len() || b.points.len() != a.points.len() {
            return Err("a tally does not fit its agents".into());
        }
        a.games = a.games.checked_add(b.games).ok_or("the game count overflows")?;
        for (x, y) in a.by_agent.iter_mut().zip(&b.by_agent) {
            *x = x.checked_merge(y).ok_or("a tally overflows")?;
        }
        for (row, other_row) in a.points.iter_mut().zip(&b.points) {
            if row.len() != other_row.len() {
                return Err("a tally does not fit its agents".into());
            }
            for (x, y) in row.iter_mut().zip(other_row) {
                *x = x.checked_add(*y).ok_or("a tally overflows")?;
            }
        }
    }
    sum.seeds = join_ranges(acc.seeds.iter().chain(&other.seeds).copied().collect());
    *acc = sum;
    Ok(())
}

/// Reads a ladder's JSON, checking its format tag first (so that other
/// results, a simulation's, are named as such) and that its tallies fit its
/// agents.
///
/// # Errors
/// What is wrong with the text.
pub fn parse(text: &str) -> Result<LadderResults, String> {
    let format = crate::simulate::format_of(text).map_err(|e| format!("not a ladder's JSON: {e}"))?;
    if format == crate::simulate::RESULTS_FORMAT {
        return Err(format!("a simulation's results (format `{format}`), not a ladder (format {LADDER_FORMAT})"));
    }
    if format != LADDER_FORMAT {
        return Err(format!("not a ladder of format {LADDER_FORMAT} (format `{format}`)"));
    }
    let r: LadderResults = serde_json::from_str(text).map_err(|e| format!("not a ladder's JSON: {e}"))?;
    let k = r.agents.len();
    for c in &r.counts {
        if c.by_agent.len() != k || c.points.len() != k || c.points.iter().any(|row| row.len() != k) {
            return Err(format!("the tally at {} players does not fit its {k} agents", c.players));
        }
    }
    Ok(r)
}

/// Adds the ladder of a `ladder --json` text to `acc` (read by [`parse`],
/// added by [`merge`]; the first text starts the sum): the step of
/// `boardgame ladder --merge` and of [`merge_texts`].
///
/// # Errors
/// When `text` is not a ladder, or it does not merge with `acc`.
pub fn merge_text(acc: &mut Option<LadderResults>, text: &str) -> Result<(), String> {
    let r = parse(text)?;
    match acc {
        None => *acc = Some(r),
        Some(a) => merge(a, &r)?,
    }
    Ok(())
}

/// Merges every ladder of `texts` (JSON of [`to_json`], shards of one
/// ladder) as `boardgame ladder --merge FILES --json` does, into the JSON
/// of the sum: the ladder's JSON when the shards cover its deals.
///
/// # Errors
/// A usage error naming the first text that is not a ladder or does not
/// merge ([`merge_text`]: another game, other agents, player counts or
/// configurations, deals already counted), or for no texts.
pub fn merge_texts<S: AsRef<str>>(texts: &[S]) -> Result<String, SimError> {
    let mut acc: Option<LadderResults> = None;
    for (i, text) in texts.iter().enumerate() {
        merge_text(&mut acc, text.as_ref()).map_err(|e| SimError::Usage(format!("result {i}: {e}")))?;
    }
    acc.map(|r| to_json(&r)).ok_or_else(|| SimError::Usage("no results to merge".to_string()))
}

/// The ladder's JSON: the tallies, and the ratings they give (ignored when
/// read back: they are computed from the tallies).
pub fn to_json(r: &LadderResults) -> String {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(counts) = v.get_mut("counts").and_then(Value::as_array_mut) {
        for (c, tally) in counts.iter_mut().zip(&r.counts) {
            c["ratings"] = serde_json::to_value(ratings(tally)).unwrap_or(Value::Null);
        }
    }
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

/// The agents' ratings at one player count, in the ladder's order (none
/// for a tally whose points do not fit its agents).
pub fn ratings(tally: &CountTally) -> Vec<Rating> {
    let k = tally.by_agent.len();
    if tally.points.len() != k || tally.points.iter().any(|row| row.len() != k) {
        // A tally that does not fit its agents ([`parse`] refuses it).
        return Vec::new();
    }
    let (theta, se) = bradley_terry(&tally.points);
    let scale = 400.0 / std::f64::consts::LN_10;
    let mean = if k == 0 { 0.0 } else { theta.iter().sum::<f64>() / k as f64 };
    tally
        .by_agent
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let elo = (theta[i] - mean) * scale;
            let half = Z95 * se[i] * scale;
            let (lo, hi) = s.win_share_interval();
            Rating {
                agent: s.name.clone(),
                elo,
                elo_interval: [elo - half, elo + half],
                share: s.win_share(),
                share_interval: [lo, hi],
                fair_share: 1.0 / tally.players.max(1) as f64,
                games: s.games,
            }
        })
        .collect()
}

/// Bradley–Terry log-strengths `θ` and the standard errors of `θ_i −
/// mean(θ)` from half-points `points[a][b]`, with one virtual draw of every
/// agent against a reference of log-strength 0 (Newton's method on the
/// penalised likelihood; the errors from the inverse of its information).
pub fn bradley_terry(points: &[Vec<u64>]) -> (Vec<f64>, Vec<f64>) {
    let k = points.len();
    // wins[a][b] (in games, draws halved) and games between a and b
    let wins = |a: usize, b: usize| points[a].get(b).copied().unwrap_or(0) as f64 / 2.0;
    let mut theta = vec![0.0f64; k];
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let info = |theta: &[f64]| -> (Vec<f64>, Vec<Vec<f64>>) {
        let mut grad = vec![0.0; k];
        let mut h = vec![vec![0.0; k]; k];
        for a in 0..k {
            // the virtual draw against the reference
            let p = sigmoid(theta[a]);
            grad[a] += 0.5 - p;
            h[a][a] += p * (1.0 - p);
            for b in 0..k {
                if a == b {
                    continue;
                }
                let n = wins(a, b) + wins(b, a);
                if n == 0.0 {
                    continue;
                }
                let p = sigmoid(theta[a] - theta[b]);
                grad[a] += wins(a, b) - n * p;
                h[a][a] += n * p * (1.0 - p);
                h[a][b] -= n * p * (1.0 - p);
            }
        }
        (grad, h)
    };
    for _ in 0..100 {
        let (grad, h) = info(&theta);
        let Some(step) = solve(h, grad) else { break };
        let mut largest = 0.0f64;
        for (t, s) in theta.iter_mut().zip(&step) {
            // Damped: no step of more than 2 (about 350 Elo) at once.
            let s = s.clamp(-2.0, 2.0);
            *t += s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-10 {
            break;
        }
    }
    // The covariance of θ is the inverse information C; an agent's error
    // is that of θ_i − mean(θ), e' C e with e = unit_i − 1/k, so the weak
    // tie to the virtual reference (common to every agent) cancels out.
    let (_, h) = info(&theta);
    let columns: Option<Vec<Vec<f64>>> = (0..k)
        .map(|i| {
            let mut unit = vec![0.0; k];
            unit[i] = 1.0;
            solve(h.clone(), unit)
        })
        .collect();
    let se = match columns {
        None => vec![f64::INFINITY; k],
        Some(c) => {
            let kf = k as f64;
            let total: f64 = c.iter().flatten().sum();
            (0..k)
                .map(|i| {
                    let row: f64 = (0..k).map(|j| c[j][i]).sum();
                    (c[i][i] - 2.0 * row / kf + total / (kf * kf)).max(0.0).sqrt()
                })
                .collect()
        }
    };
    (theta, se)
}

/// Solves `a · x = b` by Gaussian elimination with partial pivoting; `None`
/// when `a` is singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (top, rest) = a.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (offset, row) in rest.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[col + 1 + offset] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// The place between the weakest (0) and the strongest agent (1), by Elo,
/// from which an agent is `hard` ([`labels`]).
pub const HARD_FROM: f64 = 0.75;

/// The place from which an agent is `medium` ([`labels`]); below it is
/// `easy`.
pub const MEDIUM_FROM: f64 = 0.4;

/// Plain labels of the agents' strength at one player count, strongest
/// first: the best-rated agent is `strongest`; the others by their place
/// `p = (elo − weakest) / (strongest − weakest)` on the span of the
/// ratings: `hard` from [`HARD_FROM`], `medium` from [`MEDIUM_FROM`],
/// `easy` below (the weakest is always `easy`).
pub fn labels(tally: &CountTally) -> Vec<(String, &'static str)> {
    let mut rows = ratings(tally);
    rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let best = rows.first().map_or(0.0, |r| r.elo);
    let worst = rows.last().map_or(0.0, |r| r.elo);
    let span = (best - worst).max(f64::MIN_POSITIVE);
    rows.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let place = (r.elo - worst) / span;
            let label = match i {
                0 => "strongest",
                _ if place >= HARD_FROM => "hard",
                _ if place >= MEDIUM_FROM => "medium",
                _ => "easy",
            };
            (r.agent, label)
        })
        .collect()
}

/// The ladder as text tables, one per player count, best first.
pub fn table(r: &LadderResults) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let seeds: Vec<String> = r.seeds.iter().map(|[s, e]| format!("{s}..{e}")).collect();
    let _ = writeln!(out, "{} ladder: {} agents, deals {}", r.engine, r.agents.len(), seeds.join(", "));
    for c in &r.counts {
        let mut rows = ratings(c);
        rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
        let width = rows.iter().map(|x| x.agent.len()).max().unwrap_or(5).max(5);
        let _ =
            writeln!(out, "\n{} players, {} games (fair share {:.1}%)", c.players, c.games, 100.0 / c.players as f64);
        let _ = writeln!(
            out,
            "  {:<width$}  {:>6}  {:>17}  {:>6}  {:>15}  {:>6}",
            "agent", "Elo", "95%", "share", "95%", "seats"
        );
        for x in rows {
            let _ = writeln!(
                out,
                "  {:<width$}  {:>+6.0}  [{:>+6.0}, {:>+6.0}]  {:>5.1}%  [{:>4.1}, {:>4.1}]%  {:>6}",
                x.agent,
                x.elo,
                x.elo_interval[0],
                x.elo_interval[1],
                100.0 * x.share,
                100.0 * x.share_interval[0],
                100.0 * x.share_interval[1],
                x.games
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lineups_bring_every_two_agents_together_and_seat_each_everywhere() {
        for (k, n, strides) in [(8, 2, 4), (8, 3, 3), (8, 4, 2), (8, 7, 1), (7, 3, 2), (7, 9, 1), (5, 3, 1), (2, 2, 1)]
        {
            let all = lineups(k, n);
            assert_eq!(all.len(), k * strides, "{k} agents at {n} seats");
            if k >= n {
                for a in 0..k {
                    for b in 0..k {
                        assert!(a == b || all.iter().any(|l| l.contains(&a) && l.contains(&b)), "{a} and {b} meet");
                    }
                }
                assert!(all.iter().all(|l| (0..n).all(|i| !l[..i].contains(&l[i]))), "distinct agents a table");
            }
            for pos in 0..n {
                let mut seen: Vec<usize> = all.iter().map(|l| l[pos]).collect();
                seen.sort_unstable();
                let each: Vec<usize> = (0..k).flat_map(|a| std::iter::repeat_n(a, strides)).collect();
                assert_eq!(seen, each, "{k} agents, {n} seats: position {pos}");
            }
        }
        assert_eq!(lineups(2, 4)[1], [1, 0, 1, 0], "fewer agents than seats: they repeat");
    }

    #[test]
    fn bradley_terry_recovers_the_order_and_the_gap() {
        // a beats b 3 games in 4 (2:1 odds squared is 3:1): 400·log10(3) ≈ 191 Elo.
        let points = vec![vec![0, 2 * 300], vec![2 * 100, 0]];
        let (theta, se) = bradley_terry(&points);
        let gap = (theta[0] - theta[1]) * 400.0 / std::f64::consts::LN_10;
        // The virtual draws pull the gap in a little.
        assert!((gap - 190.8).abs() < 3.0, "{gap}");
        // 400 games between two agents: each is ±1/sqrt(4·400·p(1−p))/… of
        // the mean, about 0.06 in θ (10 Elo).
        assert!(se[0] > 0.03 && se[0] < 0.1 && (se[0] - se[1]).abs() < 1e-9, "{se:?}");
        // An agent that won every game still has a finite rating.
        let (theta, se) = bradley_terry(&[vec![0, 20], vec![0, 0]]);
        assert!(theta[0].is_finite() && theta[0] > theta[1] && se[0].is_finite(), "{theta:?} {se:?}");
        // Nothing played: both at the reference.
        let (theta, _) = bradley_terry(&[vec![0, 0], vec![0, 0]]);
        assert_eq!(theta, [0.0, 0.0]);
    }

    #[test]
    fn labels_follow_the_place_on_the_span_of_the_ratings() {
        // a beats b and c 3:1, b and c level, d loses all: on the span
        // from d to a, b and c sit in the upper middle.
        let tally = CountTally {
            players: 2,
            config: Value::Null,
            games: 0,
            by_agent: ["a", "b", "c", "d"]
                .iter()
                .map(|n| EntrantStats { name: n.to_string(), ..Default::default() })
                .collect(),
            points: vec![vec![0, 600, 600, 400], vec![200, 0, 400, 400], vec![200, 400, 0, 400], vec![0, 0, 0, 0]],
        };
        let l = labels(&tally);
        assert_eq!(l[0], ("a".to_string(), "strongest"));
        assert_eq!(l[3], ("d".to_string(), "easy"), "the weakest: {l:?}");
        assert_eq!((l[1].1, l[2].1), ("hard", "hard"), "{l:?}");
        // Without d, b and c are at the bottom of the span: easy.
        let mut three = tally.clone();
        three.by_agent.pop();
        three.points = three.points[..3].iter().map(|row| row[..3].to_vec()).collect();
        let l = labels(&three);
        assert_eq!((l[0].1, l[1].1, l[2].1), ("strongest", "easy", "easy"), "{l:?}");
    }

    /// A small ladder's JSON (or one shard's).
    fn small(shard: Option<Shard>) -> String {
        let spec = LadderSpec {
            game: GameName::Caravan,
            players: vec![2, 3],
            config: None,
            agents: "random,heuristic".into(),
            deals: 5,
            seed: 11,
            threads: 1,
            shard,
        };
        to_json(&run_ladder(&spec, &()).unwrap())
    }

    #[test]
    fn merge_texts_of_the_shards_is_the_unsharded_json() {
        let parts: Vec<String> = (0..3).map(|i| small(Some(Shard::new(i, 3).unwrap()))).collect();
        let whole = small(None);
        assert_ne!(parts[0], whole);
        assert_eq!(merge_texts(&parts).unwrap(), whole);
        let reversed: Vec<&str> = parts.iter().rev().map(String::as_str).collect();
        assert_eq!(merge_texts(&reversed).unwrap(), whole, "in any order");
        assert_eq!(merge_texts(std::slice::from_ref(&whole)).unwrap(), whole, "one ladder is itself");
    }

    #[test]
    fn merge_texts_refuses_overlaps_nothing_and_other_results() {
        let part = small(Some(Shard::new(0, 2).unwrap()));
        let err = merge_texts(&[part.clone(), part.clone()]).unwrap_err();
        assert!(matches!(&err, SimError::Usage(m) if m.starts_with("result 1: ") && m.contains("already counted")));
        assert_eq!(merge_texts::<String>(&[]).unwrap_err(), SimError::Usage("no results to merge".into()));
        let sim = crate::simulate::SimSpec {
            game: GameName::Caravan,
            players: Some(2),
            config: None,
            games: 2,
            agents: "random".into(),
            seed: 11,
            threads: 1,
            shard: None,
            fixed_seats: false,
        };
        let sim = crate::simulate::to_json(&crate::simulate::simulate_spec(&sim).unwrap());
        let err = merge_texts(&[part.clone(), sim]).unwrap_err().to_string();
        assert_eq!(
            err,
            "result 1: a simulation's results (format `boardgame-simulate/1`), not a ladder (format boardgame-ladder/1)"
        );
        let other = small(None).replace("\"agents\": [\n    \"random\"", "\"agents\": [\n    \"flatmc\"");
        let err = merge_texts(&[part, other]).unwrap_err().to_string();
        assert!(err.contains("different agents"), "{err}");
        assert!(merge_texts(&["not json"]).unwrap_err().to_string().contains("not a ladder's JSON"));
    }

    #[test]
    fn solve_refuses_a_singular_system() {
        assert_eq!(solve(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 2.0]), None);
        assert_eq!(solve(vec![vec![2.0, 0.0], vec![0.0, 4.0]], vec![1.0, 2.0]), Some(vec![0.5, 0.5]));
    }
}
