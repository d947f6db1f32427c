//! Korovan's own agents: [`KorovanHeuristic`], a search-free agent that
//! decides from its seat's observation only (K-8), and [`tuned_ismcts`], the
//! information-set MCTS tuned for Korovan with the heuristic in its
//! rollouts; both are the engine's [`Bots`].
//!
//! See [`KorovanHeuristic`] for how it plays.

use boardgame_kit::{Agent, Bots, Budget, Game, GameRng, IsMctsAgent};

use crate::action::{Action, ActionList, AmbushSet};
use crate::config::{Fines, HelperCounts, KorovanConfig, MAX_PLAYERS};
use crate::observation::KorovanObservation;
use crate::state::{Korovan, Phase};

/// Tolerance when comparing expected costs: a helper or a switch must save
/// more than this to be played.
const EPS: f64 = 1e-9;

/// A search-free heuristic agent for Korovan. Its name is `"heuristic"`.
///
/// # How it plays
///
/// **Competitor** (phase 1, K-4).
/// * *Peek* (K-4.2): a card of the row laid just before its own, at the
///   position fewest earlier competitors peeked at (ties at random). What it
///   sees only sharpens its model of the driver's journey below.
/// * *Lay* (K-4.3): against a driver that cannot tell the positions apart,
///   keeping an `Empty` (two ambushes, fine 2, hit 2/3) collects
///   `2/3·min(2, c)` and keeping an `Ambush` (one ambush, fine 3, hit 1/3)
///   `1/3·min(3, c)` from a driver with `c` cows: keeping the `Empty` is never
///   worse in expectation, and a driver that scouts one card defeats a
///   one-ambush row completely while a two-ambush row still bites one time
///   in three. So it keeps the `Empty` — except in the game's last round,
///   where only finishing on top counts: there it enumerates every outcome of
///   the journey (each row hit or missed, fine 2 or 3, the driver's cows
///   capped and going broke, K-5.6, the toll of K-5.7) under a model of a
///   driver choosing blindly, for both choices, and keeps the card that gives
///   it the larger expected share of the win (`1/k` when `k` seats tie,
///   K-7.3). That keeps the `Ambush` when it needs three cows from the driver
///   and two would not do. The ambushes go to positions chosen at random.
///
/// **Driver** (phase 2, K-5, K-6). Each row is judged from what the driver
/// knows of it: the layouts of K-4.3 that agree with every card it has seen
/// (face up, scouted) and with the hand card when known (spied, shown), each
/// weighted by the prior [`KorovanHeuristic::two_ambush_prior`]. A position's
/// *cost* is its expected loss: the fine capped by the driver's cows, plus
/// [`KorovanHeuristic::bust_penalty`]-scaled toll income lost when the fine
/// breaks it (K-5.6, K-5.7).
/// * Before placing it plans the row exactly: every sequence of Scout, Flare
///   and Spy on the current row (each outcome weighted by its probability)
///   against stopping and placing on the cheapest position; a helper is
///   played only when what it is expected to save exceeds its *price* — what
///   the same card is worth on a later row. The price of a Scout or Flare is
///   what one more such card saves on an unseen row (the first per row saves
///   much, the second less, a third nothing), counted only while the later
///   rows are short of them and scaled by
///   [`KorovanHeuristic::helper_keep`]; on the last row every helper is free.
/// * After placing (K-5.3) it reveals, unless it learned that the token sits
///   on an ambush (or a costlier card) and a safer position exists: then it
///   switches, playing a `SecondThought` first when no switch is left.
/// * When an ambush resolves (K-5.5): a `Guard` on a 3-cow fine, a `Haggle`
///   otherwise when it lowers what is paid, a `Guard` on a 2-cow fine when
///   paying would break it or when it holds more guards than later rows are
///   likely to need — each defensive card priced by the chance that later
///   rows bring an ambush to spend it on ([`KorovanHeuristic::future_hit_rate`]).
///
/// It never reads the hidden part of a state: every decision is a function of
/// [`KorovanObservation`](crate::KorovanObservation) and the public
/// configuration, and its only randomness (ties, ambush positions) comes from
/// the `rng` it is given, so the same seed gives the same game.
///
/// ```
/// use boardgame_kit::{Agent, RandomAgent, play_game};
/// use korovan_core::{Korovan, KorovanConfig, KorovanHeuristic};
///
/// let mut bot = KorovanHeuristic::default();
/// let mut others = [RandomAgent, RandomAgent, RandomAgent, RandomAgent];
/// let [a, b, c, d] = &mut others;
/// let mut agents: [&mut dyn Agent<Korovan>; 5] = [&mut bot, a, b, c, d];
/// let game = play_game::<Korovan>(&KorovanConfig::with_players(5), &mut agents, 7).unwrap();
/// assert_eq!(game.record.agents[0], "heuristic");
/// ```
///
/// # Parameters
///
/// Public fields, or the builder methods of the same name:
///
/// | parameter | default | meaning |
/// |---|---|---|
/// | `two_ambush_prior` | 0.5 | prior probability, as a driver, that an unseen row holds two ambushes (a random layer: 1/2) |
/// | `bust_penalty` | 1.0 | weight of the toll income a driver loses when a fine breaks it (K-5.6/K-5.7), in cows per cow of expected toll |
/// | `helper_keep` | 0.85 | share of its value on an unseen row at which a spare Scout/Flare is kept for later rows |
/// | `future_hit_rate` | 0.3 | the chance a later row ends in an ambush, used to price keeping a Guard or Haggle |
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KorovanHeuristic {
    /// The prior probability that an unseen row holds two ambushes (its
    /// owner kept an `Empty`). Default 0.5, what a uniformly random layer
    /// gives; clamped into `[0.01, 0.99]`.
    pub two_ambush_prior: f64,
    /// How much going broke costs a driver beyond the cows paid, as a
    /// multiple of the toll it would otherwise expect to collect (K-5.7:
    /// one cow from every competitor with a cow, discounted by the chance of
    /// surviving the later rows). Default 1.0.
    pub bust_penalty: f64,
    /// A spare Scout or Flare is priced at this share of what it saves on a
    /// row not yet seen, while later rows are short of such cards. Default
    /// 0.85; 0 spends helpers freely, 1 hoards them.
    pub helper_keep: f64,
    /// The estimated chance that a later row ends in an ambush (after the
    /// driver's own scouting), used to price Guard and Haggle cards kept for
    /// later and the chance of surviving to collect the toll. Default 0.3.
    pub future_hit_rate: f64,
}

impl Default for KorovanHeuristic {
    fn default() -> Self {
        KorovanHeuristic { two_ambush_prior: 0.5, bust_penalty: 1.0, helper_keep: 0.85, future_hit_rate: 0.3 }
    }
}

impl KorovanHeuristic {
    /// The agent with the default parameters.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`KorovanHeuristic::two_ambush_prior`].
    #[must_use]
    pub fn two_ambush_prior(mut self, p: f64) -> Self {
        self.two_ambush_prior = p;
        self
    }

    /// Sets [`KorovanHeuristic::bust_penalty`].
    #[must_use]
    pub fn bust_penalty(mut self, w: f64) -> Self {
        self.bust_penalty = w;
        self
    }

    /// Sets [`KorovanHeuristic::helper_keep`].
    #[must_use]
    pub fn helper_keep(mut self, k: f64) -> Self {
        self.helper_keep = k;
        self
    }

    /// Sets [`KorovanHeuristic::future_hit_rate`].
    #[must_use]
    pub fn future_hit_rate(mut self, r: f64) -> Self {
        self.future_hit_rate = r;
        self
    }

    /// The action this agent chooses from `obs` (an observation of the seat
    /// to act) under `config`; `None` when the observation does not show a
    /// decision of its observer. Depends on nothing but its arguments and the
    /// `rng`.
    pub fn decide(&self, obs: &KorovanObservation, config: &KorovanConfig, rng: &mut GameRng) -> Option<Action> {
        if obs.turn != boardgame_kit::Turn::Player(usize::from(obs.observer)) {
            return None;
        }
        match obs.phase {
            Phase::Peek => self.peek(obs, rng),
            Phase::Lay => Some(self.lay(obs, config, rng)),
            Phase::Place | Phase::Decide => self.drive(obs, config.fines, rng),
            Phase::Defend => Some(self.defend(obs, config.fines)),
            Phase::Deal | Phase::Over => None,
        }
    }

    fn prior(&self) -> f64 {
        if self.two_ambush_prior.is_finite() { self.two_ambush_prior.clamp(0.01, 0.99) } else { 0.5 }
    }

    fn unit(x: f64, default: f64) -> f64 {
        if x.is_finite() { x.clamp(0.0, 1.0) } else { default }
    }

    // ----- competitor ------------------------------------------------------

    /// K-4.2: a card of the previous row, at the least-peeked position.
    fn peek(&self, obs: &KorovanObservation, rng: &mut GameRng) -> Option<Action> {
        let row = obs.rows_laid; // the previous row, 1-based (our row is rows_laid + 1)
        if row == 0 {
            return None;
        }
        let mut times = [0u32; 3];
        for c in obs.peeks.iter().flatten() {
            if u32::from(*c) / 3 + 1 == u32::from(row)
                && let Some(t) = times.get_mut(usize::from(*c % 3))
            {
                *t += 1;
            }
        }
        let least = times.iter().copied().min().unwrap_or(0);
        let pos = pick_tied(rng, |p| times[usize::from(p)] == least);
        Some(Action::Peek { row, pos })
    }

    /// K-4.3: keep the `Empty` (two ambushes) unless the last round's
    /// win-share estimate prefers keeping the `Ambush`.
    fn lay(&self, obs: &KorovanObservation, config: &KorovanConfig, rng: &mut GameRng) -> Action {
        let keep_ambush = self.keeps_ambush(obs, config);
        let count = if keep_ambush { 1 } else { 2 };
        let k = rng.index(3);
        let set = AmbushSet::ALL.iter().copied().filter(|s| s.count() == count).nth(k).unwrap_or(AmbushSet::ALL[0]);
        Action::Lay(set)
    }

    /// Whether the competitor to lay should keep its `Ambush` (one ambush at
    /// fine 3) rather than an `Empty` (two at fine 2).
    pub fn keeps_ambush(&self, obs: &KorovanObservation, config: &KorovanConfig) -> bool {
        let last_round = u32::from(obs.round) + 1 >= config.rounds();
        if !last_round {
            // against a blind driver keeping the Empty collects 2/3 of the
            // two-ambush fine, keeping the Ambush 1/3 of the one-ambush fine:
            // with the rules' fines (2 and 3) the Empty never collects less
            let fines = config.fines;
            return u32::from(fines.one_ambush) > 2 * u32::from(fines.two_ambushes);
        }
        let double = self.final_share(obs, config.fines, false);
        let single = self.final_share(obs, config.fines, true);
        single > double + 1e-6
    }

    /// The expected share of the win (K-7.3) of the observer, about to lay
    /// its row in the last round, keeping the `Ambush` or not.
    fn final_share(&self, obs: &KorovanObservation, fines: Fines, keep_ambush: bool) -> f64 {
        let n = usize::from(obs.players).min(MAX_PLAYERS);
        let me = usize::from(obs.observer);
        let my_row = obs.rows_laid + 1;
        let mut laws = [[0.0f64; 3]; MAX_PLAYERS];
        for (r, law) in laws.iter_mut().enumerate().take(n.saturating_sub(1)) {
            let row = r as u8 + 1;
            *law = if row == my_row {
                if keep_ambush { [2.0 / 3.0, 0.0, 1.0 / 3.0] } else { [1.0 / 3.0, 2.0 / 3.0, 0.0] }
            } else {
                let w = self.row_weights(obs, row);
                blind_law(&w)
            };
        }
        let mut cows = [0u8; MAX_PLAYERS];
        cows[..n].copy_from_slice(&obs.cows[..n]);
        let mut total = 0.0;
        let fine_of = [0, fines.two_ambushes, fines.one_ambush];
        journey(&laws, &fine_of, n, usize::from(obs.driver), me, 1, cows, 1.0, &mut total);
        total
    }

    // ----- driver ----------------------------------------------------------

    /// The prior weight of each layout of [`AmbushSet::ALL`] for `row`
    /// (1-based), zero for the layouts the observer's knowledge rules out.
    fn row_weights(&self, obs: &KorovanObservation, row: u8) -> [f64; 6] {
        let q = self.prior();
        let shift = u32::from(row.saturating_sub(1)) * 3;
        let laid = row >= 1 && row <= obs.rows_laid;
        let kmask = if laid { (obs.known >> shift) & 7 } else { 0 };
        let amb = if laid { (obs.known_ambush >> shift) & 7 } else { 0 };
        let bit = 1u8.checked_shl(u32::from(row.saturating_sub(1))).unwrap_or(0);
        let hand = (laid && obs.hand_known & bit != 0).then_some(if obs.hand_ambush & bit != 0 { 1 } else { 2 });
        let mut w = [0.0; 6];
        for (i, s) in AmbushSet::ALL.iter().enumerate() {
            let m = u32::from(s.mask());
            if (m ^ amb) & kmask != 0 || hand.is_some_and(|h| h != s.count()) {
                continue;
            }
            w[i] = if s.count() == 2 { q / 3.0 } else { (1.0 - q) / 3.0 };
        }
        if w.iter().all(|&x| x == 0.0) {
            // Inconsistent knowledge (cannot happen in a valid state): the prior.
            for (i, s) in AmbushSet::ALL.iter().enumerate() {
                w[i] = if s.count() == 2 { q / 3.0 } else { (1.0 - q) / 3.0 };
            }
        }
        w
    }

    /// The planning context of the current row for the driver.
    fn row_plan(&self, obs: &KorovanObservation, fines: Fines) -> Option<RowPlan> {
        let row = obs.current_row?;
        let n = obs.players;
        let driver = usize::from(obs.driver);
        let cows = f64::from(*obs.cows.get(driver)?);
        let rows = n.saturating_sub(1);
        let later = rows.saturating_sub(row); // rows after this one
        let hit = Self::unit(self.future_hit_rate, 0.3);
        // K-5.7: the toll, from every competitor with a cow.
        let tolls = obs.cows.iter().take(usize::from(n)).enumerate().filter(|&(s, &c)| s != driver && c > 0).count();
        let survive = (1.0 - hit * 0.5).powi(i32::from(later));
        let bust = if self.bust_penalty.is_finite() { self.bust_penalty.max(0.0) } else { 1.0 };
        let bust = bust * tolls as f64 * survive;
        let loss = |f: f64| if f >= cows { cows + bust } else { f };
        let shift = u32::from(row - 1) * 3;
        let hand = obs.helper_hand.unwrap_or(HelperCounts::NONE);
        let mut plan = RowPlan {
            weights: self.row_weights(obs, row),
            loss2: loss(f64::from(fines.two_ambushes)),
            loss3: loss(f64::from(fines.one_ambush)),
            face_up: ((obs.face_up >> shift) & 7) as u8,
            spy_known: obs.hand_known & (1u8 << (row - 1)) != 0,
            price_info: 0.0,
            price_small: if later > 0 { 0.02 } else { 0.0 },
        };
        // The price of a Scout/Flare: what the marginal one saves on an
        // unseen row, while the later rows are short of them.
        let info = u32::from(hand.scout) + u32::from(hand.flare);
        let later = u32::from(later);
        if later > 0 && info > 0 {
            let fresh = RowPlan { weights: self.row_weights_prior(), face_up: 0, spy_known: false, ..plan };
            let v = |k: u8| fresh.value(0b111_111, Info { scout: k, flare: 0, spy: 0 }, Mobility::Free, 3).0;
            let (v0, v1, v2) = (v(0), v(1), v(2));
            let keep = Self::unit(self.helper_keep, 0.85);
            plan.price_info = if info <= later {
                (v0 - v1) * keep
            } else if info <= 2 * later {
                (v1 - v2) * keep
            } else {
                0.0
            };
        }
        Some(plan)
    }

    fn row_weights_prior(&self) -> [f64; 6] {
        let q = self.prior();
        let mut w = [0.0; 6];
        for (i, s) in AmbushSet::ALL.iter().enumerate() {
            w[i] = if s.count() == 2 { q / 3.0 } else { (1.0 - q) / 3.0 };
        }
        w
    }

    /// K-5.1–K-5.4 with K-6 helpers: plan the current row.
    fn drive(&self, obs: &KorovanObservation, fines: Fines, rng: &mut GameRng) -> Option<Action> {
        let row = obs.current_row?;
        let plan = self.row_plan(obs, fines)?;
        let hand = obs.helper_hand.unwrap_or(HelperCounts::NONE);
        let info = Info { scout: hand.scout.min(3), flare: hand.flare.min(3), spy: hand.spy.min(1) };
        let alive = plan.alive();
        let mobility = match (obs.phase, obs.token) {
            (Phase::Place, _) | (_, None) => Mobility::Free,
            (_, Some(t)) if obs.switches_left > 0 => Mobility::Switch(t),
            (_, Some(t)) if hand.second_thought > 0 => Mobility::Second(t),
            (_, Some(t)) => Mobility::Stuck(t),
        };
        let (_, choice) = plan.value(alive, info, mobility, 4);
        Some(match choice {
            Choice::Scout(pos) => Action::Scout { row, pos },
            Choice::Flare(pos) => Action::Flare { row, pos },
            Choice::Spy => Action::Spy { row },
            Choice::Stop => {
                let costs = [plan.cost(alive, 0), plan.cost(alive, 1), plan.cost(alive, 2)];
                match mobility {
                    Mobility::Free => {
                        let best = costs.iter().copied().fold(f64::INFINITY, f64::min);
                        Action::Place(pick_tied(rng, |p| costs[usize::from(p)] <= best + EPS))
                    }
                    Mobility::Switch(t) | Mobility::Second(t) | Mobility::Stuck(t) => {
                        let here = costs.get(usize::from(t)).copied().unwrap_or(f64::INFINITY);
                        let extra = if matches!(mobility, Mobility::Second(_)) { plan.price_small } else { 0.0 };
                        let best = (0..3u8)
                            .filter(|&p| p != t)
                            .map(|p| (costs[usize::from(p)], p))
                            .fold((f64::INFINITY, t), |a, b| if b.0 < a.0 - EPS { b } else { a });
                        if matches!(mobility, Mobility::Stuck(_)) || best.0 + extra >= here - EPS {
                            Action::Reveal
                        } else if matches!(mobility, Mobility::Second(_)) {
                            Action::SecondThought
                        } else {
                            Action::Switch(best.1)
                        }
                    }
                }
            }
        })
    }

    /// K-5.5 with K-6.1: pay, Guard or Haggle.
    fn defend(&self, obs: &KorovanObservation, fines: Fines) -> Action {
        let hand = obs.helper_hand.unwrap_or(HelperCounts::NONE);
        let fine = f64::from(obs.pending_fine);
        let cows = f64::from(obs.cows.get(usize::from(obs.driver)).copied().unwrap_or(0));
        let Some(plan) = self.row_plan(obs, fines) else {
            return Action::Pay;
        };
        let later = u32::from(obs.players.saturating_sub(1).saturating_sub(obs.current_row.unwrap_or(0)));
        let hit = Self::unit(self.future_hit_rate, 0.3);
        // The chance that the later rows bring at least `k` ambushes.
        let at_least = |k: u32| binomial_tail(later, hit, k);
        // the bust penalty (the same for every fine)
        let bust_extra = plan.loss3 - f64::from(fines.one_ambush).min(cows);
        let cost = |f: f64| if f >= cows { cows + bust_extra.max(0.0) } else { f };
        let guards = u32::from(hand.guard);
        let haggles = u32::from(hand.haggle);
        // Keeping a card is worth a typical saving times the chance of using it later.
        let typical = (f64::from(fines.one_ambush) + f64::from(fines.two_ambushes)) / 2.0; // 2.5 by the rules
        let guard_price = typical * at_least(guards);
        let haggle_price = at_least(guards + haggles);
        let mut best = (cost(fine), Action::Pay);
        if haggles > 0 {
            let v = cost((fine - 1.0).max(0.0)) + haggle_price;
            if v < best.0 - EPS {
                best = (v, Action::Haggle);
            }
        }
        if guards > 0 {
            let v = guard_price;
            // The larger fine (3 cows) always deserves the Guard (the largest saving).
            if obs.pending_fine >= fines.max() || v < best.0 - EPS {
                best = (v, Action::Guard);
            }
        }
        best.1
    }
}

/// `P(X ≥ k)` for `X ~ Binomial(n, p)`.
fn binomial_tail(n: u32, p: f64, k: u32) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    let mut total = 0.0;
    let mut coef = 1.0f64; // C(n, i)
    for i in 0..=n {
        if i >= k {
            total += coef * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
        }
        coef = coef * f64::from(n - i) / f64::from(i + 1);
    }
    total
}

/// A position 0..3 drawn uniformly among those `ok` accepts (0 if none).
fn pick_tied(rng: &mut GameRng, ok: impl Fn(u8) -> bool) -> u8 {
    let count = (0..3u8).filter(|&p| ok(p)).count();
    if count == 0 {
        return 0;
    }
    let k = rng.index(count);
    (0..3u8).filter(|&p| ok(p)).nth(k).unwrap_or(0)
}

/// `[no ambush, two-ambush fine, one-ambush fine]` for a driver choosing a position blindly
/// in a row whose layouts have weights `w`.
fn blind_law(w: &[f64; 6]) -> [f64; 3] {
    let total: f64 = w.iter().sum();
    if total <= 0.0 {
        return [0.5, 1.0 / 3.0, 1.0 / 6.0];
    }
    let (mut two, mut three) = (0.0, 0.0);
    for (i, s) in AmbushSet::ALL.iter().enumerate() {
        if s.count() == 2 {
            two += w[i] * 2.0 / 3.0;
        } else {
            three += w[i] / 3.0;
        }
    }
    [(total - two - three) / total, two / total, three / total]
}

/// Enumerates every outcome of the journey from `row` (1-based) on with the
/// per-row laws over `fine_of` (no ambush, two-ambush fine, one-ambush
/// fine), adding `prob ×` the observer's share of the win at the end
/// (K-5.5–K-5.7, K-7.3) into `total`.
#[allow(clippy::too_many_arguments)]
fn journey(
    laws: &[[f64; 3]; MAX_PLAYERS],
    fine_of: &[u8; 3],
    n: usize,
    driver: usize,
    me: usize,
    row: usize,
    cows: [u8; MAX_PLAYERS],
    prob: f64,
    total: &mut f64,
) {
    if prob <= 0.0 {
        return;
    }
    if row >= n {
        // K-5.7: the driver passed every row with a cow left.
        let mut c = cows;
        let mut gain = 0u8;
        for (s, x) in c.iter_mut().enumerate().take(n) {
            if s != driver && *x > 0 {
                *x -= 1;
                gain += 1;
            }
        }
        c[driver % MAX_PLAYERS] += gain;
        *total += prob * share(&c, n, me);
        return;
    }
    let owner = (driver + row) % n;
    let law = laws[(row - 1) % MAX_PLAYERS];
    for (o, &p) in law.iter().enumerate() {
        if p <= 0.0 {
            continue;
        }
        let fine = fine_of[o];
        let mut c = cows;
        let paid = fine.min(c[driver]);
        c[driver] -= paid;
        c[owner] += paid;
        if fine > 0 && c[driver] == 0 {
            *total += prob * p * share(&c, n, me); // K-5.6: the journey ends
        } else {
            journey(laws, fine_of, n, driver, me, row + 1, c, prob * p, total);
        }
    }
}

/// The observer's share of the win: `1/k` when it is among the `k` seats
/// with the most cows (K-7.3), else 0.
fn share(cows: &[u8; MAX_PLAYERS], n: usize, me: usize) -> f64 {
    let best = cows.iter().take(n).copied().max().unwrap_or(0);
    if cows.get(me).copied() != Some(best) {
        return 0.0;
    }
    1.0 / cows.iter().take(n).filter(|&&c| c == best).count() as f64
}

/// Information helpers left to plan with on this row.
#[derive(Clone, Copy, Debug)]
struct Info {
    scout: u8,
    flare: u8,
    spy: u8,
}

/// Where the token may still go.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mobility {
    /// Before Place, or a switch is left: anywhere.
    Free,
    /// On `t`, a switch left.
    Switch(u8),
    /// On `t`, no switch left but a `SecondThought` in hand.
    Second(u8),
    /// On `t` for good.
    Stuck(u8),
}

/// The first step of a row plan.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    /// Stop gathering information: place, switch or reveal.
    Stop,
    /// Scout this position of the current row.
    Scout(u8),
    /// Flare this position of the current row.
    Flare(u8),
    /// Spy on the current row.
    Spy,
}

/// What the driver knows of the current row and what losses cost.
#[derive(Clone, Copy, Debug)]
struct RowPlan {
    /// Weights of the layouts of [`AmbushSet::ALL`] (0 = ruled out).
    weights: [f64; 6],
    /// The cost of the two-ambush fine (2 cows) and of the one-ambush fine (3 cows).
    loss2: f64,
    loss3: f64,
    /// Face-up positions (bit `p`).
    face_up: u8,
    /// Whether the row's hand card is known (Spy is then useless).
    spy_known: bool,
    /// The price of playing a Scout or Flare now.
    price_info: f64,
    /// The price of a Spy or SecondThought (0 on the last row).
    price_small: f64,
}

impl RowPlan {
    /// The layouts still possible, bit `i` for `AmbushSet::ALL[i]`.
    fn alive(&self) -> u8 {
        let mut m = 0u8;
        for (i, &w) in self.weights.iter().enumerate() {
            if w > 0.0 {
                m |= 1 << i;
            }
        }
        m
    }

    fn mass(&self, alive: u8, pred: impl Fn(AmbushSet) -> bool) -> f64 {
        AmbushSet::ALL
            .iter()
            .enumerate()
            .filter(|&(i, s)| alive & (1 << i) != 0 && pred(*s))
            .map(|(i, _)| self.weights[i])
            .sum()
    }

    /// The expected loss of the token resolving at `pos`.
    fn cost(&self, alive: u8, pos: u8) -> f64 {
        let total = self.mass(alive, |_| true);
        if total <= 0.0 {
            return 0.0;
        }
        let two = self.mass(alive, |s| s.contains(pos) && s.count() == 2);
        let three = self.mass(alive, |s| s.contains(pos) && s.count() == 1);
        (two * self.loss2 + three * self.loss3) / total
    }

    /// The value (expected loss plus helper prices) of the best plan from
    /// here, and its first step.
    fn value(&self, alive: u8, info: Info, mobility: Mobility, depth: u8) -> (f64, Choice) {
        let costs = [self.cost(alive, 0), self.cost(alive, 1), self.cost(alive, 2)];
        let min_all = costs.iter().copied().fold(f64::INFINITY, f64::min);
        let stop = match mobility {
            Mobility::Free | Mobility::Switch(_) => min_all,
            Mobility::Second(t) => {
                let here = costs.get(usize::from(t)).copied().unwrap_or(min_all);
                here.min(min_all + self.price_small)
            }
            Mobility::Stuck(t) => costs.get(usize::from(t)).copied().unwrap_or(min_all),
        };
        let mut best = (stop, Choice::Stop);
        if depth == 0 || stop <= EPS {
            return best;
        }
        let total = self.mass(alive, |_| true);
        if total <= 0.0 {
            return best;
        }
        // Scout or Flare a face-down position whose face is still uncertain.
        for pos in 0..3u8 {
            if self.face_up & (1 << pos) != 0 {
                continue;
            }
            let amb = self.mass(alive, |s| s.contains(pos));
            if amb <= 0.0 || amb >= total {
                continue; // already certain
            }
            let (a_mask, e_mask) = split(alive, |s| s.contains(pos));
            for (kind, have) in [(Choice::Scout(pos), info.scout), (Choice::Flare(pos), info.flare)] {
                if have == 0 {
                    continue;
                }
                let rest = match kind {
                    Choice::Scout(_) => Info { scout: info.scout - 1, ..info },
                    _ => Info { flare: info.flare - 1, ..info },
                };
                let v = self.price_info
                    + amb / total * self.value(a_mask, rest, mobility, depth - 1).0
                    + (total - amb) / total * self.value(e_mask, rest, mobility, depth - 1).0;
                if v < best.0 - EPS {
                    best = (v, kind);
                }
            }
        }
        if info.spy > 0 && !self.spy_known {
            let single = self.mass(alive, |s| s.count() == 1);
            if single > 0.0 && single < total {
                let (s_mask, d_mask) = split(alive, |s| s.count() == 1);
                let rest = Info { spy: info.spy - 1, ..info };
                let v = self.price_small
                    + single / total * self.value(s_mask, rest, mobility, depth - 1).0
                    + (total - single) / total * self.value(d_mask, rest, mobility, depth - 1).0;
                if v < best.0 - EPS {
                    best = (v, Choice::Spy);
                }
            }
        }
        best
    }
}

/// `alive` split into the layouts `pred` accepts and the others.
fn split(alive: u8, pred: impl Fn(AmbushSet) -> bool) -> (u8, u8) {
    let (mut yes, mut no) = (0u8, 0u8);
    for (i, s) in AmbushSet::ALL.iter().enumerate() {
        if alive & (1 << i) != 0 {
            if pred(*s) {
                yes |= 1 << i;
            } else {
                no |= 1 << i;
            }
        }
    }
    (yes, no)
}

impl Agent<Korovan> for KorovanHeuristic {
    fn name(&self) -> String {
        "heuristic".to_string()
    }

    /// Decides from `state.observation(seat)` and the public configuration
    /// only; falls back to a random legal action if the observation shows
    /// no decision of `seat` (the driver never asks that).
    fn act(&mut self, state: &Korovan, seat: usize, rng: &mut GameRng) -> Action {
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        let chosen = state.observation(seat).ok().and_then(|obs| self.decide(&obs, state.config(), rng));
        match chosen {
            Some(a) if legal.contains(&a) => a,
            _ => legal.get(rng.index(legal.len())).copied().unwrap_or(Action::Pay),
        }
    }
}

/// The tuned information-set MCTS for Korovan — the `ismcts-h` of
/// `docs/bots.md` — with `budget` per decision: the heuristic plays the
/// searching seat's own later decisions in rollouts, the other seats play
/// uniformly at random, and chance does not branch the tree.
///
/// ```
/// use boardgame_kit::{Agent, Budget, Game, GameRng, Turn, sample_chance};
/// use korovan_core::{Korovan, KorovanConfig, tuned_ismcts};
///
/// let mut game = Korovan::new_game(&KorovanConfig::with_players(3)).unwrap();
/// let mut rng = GameRng::new(1);
/// while game.turn() == Turn::Chance {
///     let deal = sample_chance(&game, &mut rng, &mut Default::default()).unwrap();
///     game.apply(deal).unwrap();
/// }
/// let mut agent = tuned_ismcts(Budget::Iterations(50));
/// let Turn::Player(seat) = game.turn() else { unreachable!() };
/// let action = agent.act(&game, seat, &mut rng);
/// assert!(game.validate(action).is_ok());
/// ```
pub fn tuned_ismcts(budget: Budget) -> IsMctsAgent<Korovan> {
    IsMctsAgent::new(budget).chance_branching(false).searcher_rollout_agent(Box::new(KorovanHeuristic::default()))
}

impl Bots for Korovan {
    /// [`KorovanHeuristic`] with its default weights.
    fn heuristic_agent() -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(KorovanHeuristic::default()))
    }

    /// [`tuned_ismcts`].
    fn tuned_agent(budget: Budget) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(tuned_ismcts(budget)))
    }
    /// The committed network ([`crate::learned_network`]) at `temperature`.
    fn learned_agent(temperature: f32) -> Option<Result<Box<dyn Agent<Self>>, boardgame_kit::nn::WeightsError>> {
        Some(crate::net::learned_agent(temperature))
    }

    /// The search guided by the committed network
    /// ([`Bots::learned_search_with`]).
    fn learned_search_agent(budget: Budget) -> Option<Result<Box<dyn Agent<Self>>, boardgame_kit::nn::WeightsError>> {
        Some(crate::net::learned_search_agent(budget))
    }

    // `learned@FILE` and `learned-ismcts:N@FILE`: a file's network played
    // as the committed one is.
    boardgame_kit::nn_agents_from_files!();

    /// The search of `learned-ismcts:N` over `net`: the tuned search of
    /// `ismcts-h` ([`tuned_ismcts`]: chance not branching, the heuristic as
    /// the searching seat's rollout policy, the other seats random in
    /// rollouts) improving on `net`'s greedy move as its base
    /// ([`IsMctsAgent::base_agent`], margin [`crate::LEARNED_SEARCH_MARGIN`]):
    /// the network's move is played unless the search finds another better
    /// by more than the margin (`docs/bots.md`, "Learned agents").
    fn learned_search_with(
        net: std::sync::Arc<boardgame_kit::nn::Network>,
        budget: Budget,
    ) -> Result<Box<dyn Agent<Self>>, boardgame_kit::nn::WeightsError> {
        let base = boardgame_kit::nn::LearnedAgent::<Korovan>::new(net, 0.0)?;
        Ok(Box::new(tuned_ismcts(budget).base_agent(Box::new(base), crate::LEARNED_SEARCH_MARGIN)))
    }
}
