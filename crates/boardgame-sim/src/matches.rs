//! Matches of built-in agents named by the caller, one agent per seat: a
//! whole match on the kit's [`Arena`] ([`arena_report`]), one game of the
//! kit's driver ([`play_record`]), and the tally of a match driven from
//! outside ([`tally_game`]), kept as the arena keeps its own, so that both
//! report the same statistics.

use std::ops::Range;

use boardgame_kit::{AgentSpec, Arena, ArenaReport, Bots, Game, GameRecord};

use crate::SimError;

/// The seats of a game of `config`.
///
/// # Errors
/// A usage error with the engine's message for a bad configuration.
pub fn seats<G: Game>(config: &G::Config) -> Result<usize, SimError> {
    G::new_game(config).map(|g| g.num_players()).map_err(|e| SimError::Usage(format!("{}: {e}", G::NAME)))
}

/// Checks that `given` agents fit a game of `seats` seats, one per seat.
///
/// # Errors
/// A usage error saying how many were expected.
pub fn check_agent_count(seats: usize, given: usize) -> Result<(), SimError> {
    if given == seats {
        Ok(())
    } else {
        Err(SimError::Usage(format!("the game has {seats} seats but {given} agents were given (one per seat)")))
    }
}

/// The seeds `seed..seed + games`.
///
/// # Errors
/// A usage error when they pass `2^64`.
pub fn seed_range(seed: u64, games: u64) -> Result<Range<u64>, SimError> {
    let end = seed.checked_add(games).ok_or_else(|| {
        SimError::Usage(format!("seeds {seed}..{seed}+{games} pass 2**64: choose a smaller seed or fewer games"))
    })?;
    Ok(seed..end)
}

/// Plays the games of `seeds` between `specs` (one agent per seat) on the
/// kit's [`Arena`] with `threads` threads: entrant `e` at seat
/// `(e + seed) mod n` with `rotate`, else at seat `e`.
///
/// # Errors
/// A usage error for a bad configuration, a wrong number of agents or an
/// agent `G` lacks; a runtime error when a game fails.
pub fn arena_report<G: Bots>(
    config: G::Config,
    specs: &[AgentSpec],
    seeds: Range<u64>,
    threads: usize,
    rotate: bool,
) -> Result<ArenaReport, SimError> {
    check_agent_count(seats::<G>(&config)?, specs.len())?;
    let entrants = specs
        .iter()
        .map(|s| s.entrant::<G>().map_err(|e| SimError::Usage(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let arena = Arena::<G>::new(config).rotate_seats(rotate);
    arena.run(&entrants, seeds, threads).map_err(|e| SimError::Runtime(format!("{}: {e}", G::NAME)))
}

/// Plays one game of `config` from `seed` with the kit's driver, `specs`
/// in seat order, and returns its record.
///
/// # Errors
/// As [`arena_report`].
pub fn play_record<G: Bots>(
    config: &G::Config,
    specs: &[AgentSpec],
    seed: u64,
) -> Result<GameRecord<G::Config>, SimError> {
    check_agent_count(seats::<G>(config)?, specs.len())?;
    let mut agents = specs
        .iter()
        .map(|s| s.build::<G>().map_err(|e| SimError::Usage(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut refs: Vec<&mut dyn boardgame_kit::Agent<G>> =
        agents.iter_mut().map(|a| &mut **a as &mut dyn boardgame_kit::Agent<G>).collect();
    boardgame_kit::play_game::<G>(config, &mut refs, seed)
        .map(|g| g.record)
        .map_err(|e| SimError::Runtime(format!("{}: {e}", G::NAME)))
}

/// Counts the finished game `state`, `length` actions long (chance
/// included), in which entrant `e` of `report` played seat `seat_of[e]`.
///
/// # Errors
/// A usage error, counting nothing, for a game that is not over or a
/// `seat_of` that does not give each entrant its own seat.
pub fn tally_game<G: Game>(
    report: &mut ArenaReport,
    state: &G,
    seat_of: &[usize],
    length: u64,
) -> Result<(), SimError> {
    if !state.is_terminal() {
        return Err(SimError::Usage("the game is not over: only a finished game is tallied".to_string()));
    }
    let n = report.entrants.len();
    let mut seen = vec![false; n];
    if seat_of.len() != n
        || state.num_players() != n
        || seat_of.iter().any(|&s| s >= n || std::mem::replace(&mut seen[s], true))
    {
        return Err(SimError::Usage(format!(
            "seat_of must give each of the {n} entrants its own seat of 0..{n}, got {seat_of:?}"
        )));
    }
    let outcome = state.outcome();
    for (stats, &seat) in report.entrants.iter_mut().zip(seat_of) {
        stats.record(outcome, seat, state.score(seat));
    }
    report.games += 1;
    report.length_sum += length;
    Ok(())
}
