//! Paired treatments: what a change of one seat's luck is worth.
//!
//! A [`Treatment`] forces a chance outcome for one seat (the *target*):
//! Korovan's [`crate::DealKind`] deals the target a card of one kind. Each
//! seed is played twice — as it falls, and with the treatment — and the
//! target's win share is compared game by game. The paired differences
//! cancel most of the luck both games share, so their mean has a much
//! tighter interval than two independent samples would give.

use std::ops::Range;
use std::sync::Mutex;

use boardgame_kit::{Agent, Arena, Driver, Entrant, Game, SHARE_UNIT, Turn};
use serde::{Deserialize, Serialize};

use crate::LabError;
pub use boardgame_kit::share_units;
pub use boardgame_sim::games::Treatment;

use crate::stats::{Estimate, Z95, mean_interval, wilson};

/// The tallies of one treatment: integer sums, so shards merge exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorthTally {
    /// The treatment's name.
    pub name: String,
    /// Pairs of games played.
    pub games: u64,
    /// Games in which the treatment forced at least one outcome.
    pub forced: u64,
    /// The target's win share without the treatment, in share units.
    pub base_units: u64,
    /// The target's win share with the treatment, in share units.
    pub treated_units: u64,
    /// Sum of the squared paired differences, in share units squared.
    pub diff_sq_sum: u128,
}

impl WorthTally {
    /// Adds `other` (the same treatment) into `self`.
    pub fn merge(&mut self, other: &WorthTally) {
        self.games += other.games;
        self.forced += other.forced;
        self.base_units += other.base_units;
        self.treated_units += other.treated_units;
        self.diff_sq_sum += other.diff_sq_sum;
    }

    fn share(&self, units: u64) -> f64 {
        if self.games == 0 { 0.0 } else { units as f64 / (self.games * SHARE_UNIT) as f64 }
    }

    /// The target's win share without the treatment.
    pub fn base(&self) -> Estimate {
        wilson(self.share(self.base_units), self.games, Z95)
    }

    /// The target's win share with the treatment.
    pub fn treated(&self) -> Estimate {
        wilson(self.share(self.treated_units), self.games, Z95)
    }

    /// The mean paired difference (treated − base) of the target's win
    /// share, with its normal 95% interval.
    pub fn effect(&self) -> Estimate {
        let u = SHARE_UNIT as f64;
        let sum = (self.treated_units as f64 - self.base_units as f64) / u;
        let sum_sq = self.diff_sq_sum as f64 / (u * u);
        mean_interval(sum, sum_sq, self.games, Z95)
    }
}

/// Plays the game of `seed` as [`Arena::play_one`] does (the same seats,
/// the same streams, so without a treatment the very same game), letting
/// `treatment` force chance outcomes for `target`. Returns the final state
/// and whether anything was forced.
///
/// # Errors
/// [`LabError::Play`] when an agent or a forced outcome is illegal.
pub fn play_treated<G: Game>(
    config: &G::Config,
    entrants: &[Entrant<G>],
    arena: &Arena<G>,
    seed: u64,
    treatment: Option<(&dyn Treatment<G>, usize)>,
) -> Result<(G, bool), LabError> {
    let fail = |reason: String| LabError::Play { seeds: seed.to_string(), settings: "card worth".into(), reason };
    let mut driver = Driver::<G>::from_state(G::new_game(config).map_err(|e| fail(e.to_string()))?, seed);
    let n = driver.state().num_players();
    if entrants.len() != n {
        return Err(fail(format!("{} agents for {n} seats", entrants.len())));
    }
    let mut by_seat: Vec<Option<Box<dyn Agent<G>>>> = (0..n).map(|_| None).collect();
    for (e, entrant) in entrants.iter().enumerate() {
        by_seat[arena.seat_of(e, seed, n)] = Some(entrant.agent());
    }
    let mut agents: Vec<Box<dyn Agent<G>>> = by_seat.into_iter().flatten().collect();
    for a in &mut agents {
        a.reset();
    }
    let mut forced = false;
    let bound = G::max_game_length(config);
    let mut steps = 0usize;
    loop {
        if steps > bound {
            return Err(fail(format!("longer than the engine's bound of {bound} actions")));
        }
        steps += 1;
        match driver.turn() {
            Turn::Terminal => break,
            Turn::Chance => {
                let choice = treatment.and_then(|(t, target)| t.force(driver.state(), target));
                match choice {
                    Some(action) => {
                        driver.apply(action).map_err(|e| fail(format!("forced `{action}`: {e}")))?;
                        forced = true;
                    }
                    None => {
                        driver.step_chance().ok_or_else(|| fail("a chance node without outcomes".into()))?;
                    }
                }
            }
            Turn::Player(seat) => {
                let agent = agents.get_mut(seat).ok_or_else(|| fail(format!("no agent for seat {seat}")))?;
                driver.step_agent(&mut **agent).map_err(|e| fail(e.to_string()))?;
            }
        }
    }
    Ok((driver.into_state(), forced))
}

/// Measures every treatment over `seeds`: the target of seed `s` is seat
/// `s mod n` (so every seat is the target equally often over consecutive
/// seeds); each seed's untreated game is played once and compared with its
/// game under each treatment. Threads take seeds in stripes; the result
/// depends only on the seeds.
///
/// # Errors
/// The first failing game by seed order.
pub fn measure<G: Game>(
    config: &G::Config,
    entrants: &[Entrant<G>],
    treatments: &[Box<dyn Treatment<G>>],
    seeds: Range<u64>,
    threads: usize,
    on_seed: &(dyn Fn() + Sync),
) -> Result<Vec<WorthTally>, LabError> {
    let arena = Arena::<G>::new(config.clone());
    let empty: Vec<WorthTally> =
        treatments.iter().map(|t| WorthTally { name: t.name(), ..Default::default() }).collect();
    let threads = threads.max(1);
    let first_error: Mutex<Option<(u64, LabError)>> = Mutex::new(None);
    let worker = |t: usize| -> Vec<WorthTally> {
        let mut tallies = empty.clone();
        let mut seed = seeds.start.saturating_add(t as u64);
        while seed < seeds.end {
            if let Err(e) = one_seed(config, entrants, &arena, treatments, seed, &mut tallies) {
                let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                if slot.as_ref().is_none_or(|(s, _)| seed < *s) {
                    *slot = Some((seed, e));
                }
                break;
            }
            on_seed();
            seed = match seed.checked_add(threads as u64) {
                Some(s) => s,
                None => break,
            };
        }
        tallies
    };
    let parts: Vec<Vec<WorthTally>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|t| scope.spawn(move || worker(t))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    if let Some((_, e)) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut total = empty;
    for part in parts {
        for (a, b) in total.iter_mut().zip(&part) {
            a.merge(b);
        }
    }
    Ok(total)
}

fn one_seed<G: Game>(
    config: &G::Config,
    entrants: &[Entrant<G>],
    arena: &Arena<G>,
    treatments: &[Box<dyn Treatment<G>>],
    seed: u64,
    tallies: &mut [WorthTally],
) -> Result<(), LabError> {
    let (base, _) = play_treated(config, entrants, arena, seed, None)?;
    let n = base.num_players() as u64;
    let target = (seed % n.max(1)) as usize;
    let b = share_units(base.outcome(), target);
    for (t, tally) in treatments.iter().zip(tallies.iter_mut()) {
        let (treated, forced) = play_treated(config, entrants, arena, seed, Some((&**t, target)))?;
        let a = share_units(treated.outcome(), target);
        let d = i128::from(a) - i128::from(b);
        tally.games += 1;
        tally.forced += u64::from(forced);
        tally.base_units += b;
        tally.treated_units += a;
        tally.diff_sq_sum += (d * d) as u128;
    }
    Ok(())
}
