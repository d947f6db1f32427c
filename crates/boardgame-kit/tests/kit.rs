//! The kit tested on its own small game, `HiddenNim`, before any engine.

use boardgame_kit::testgame::{HiddenNim, NimAction, NimConfig, NimError};
use boardgame_kit::{
    Agent, Arena, Driver, Entrant, Game, GameRecord, GameRng, Outcome, PlayError, RandomAgent, RecordError,
    RecordHeader, SHARE_UNIT, Seats, Turn, Viewer, conformance, decision_positions, legal_action_mask, perft,
    play_game, playout, wilson_interval,
};

fn new(stones: u8) -> HiddenNim {
    HiddenNim::new_game(&NimConfig { stones }).unwrap()
}

fn play(state: &mut HiddenNim, actions: &[NimAction]) {
    for &a in actions {
        state.apply(a).unwrap();
    }
}

#[test]
fn bad_config_is_a_typed_error() {
    let e = HiddenNim::new_game(&NimConfig { stones: 0 }).unwrap_err();
    assert_eq!(e, NimError::Config(0));
    assert!(e.to_string().contains("between 1 and 20"));
}

#[test]
fn explicit_chance_nodes_list_exact_weights() {
    let mut s = new(5);
    assert_eq!(s.turn(), Turn::Chance);
    let mut c = <HiddenNim as Game>::ChanceList::default();
    s.chance_outcomes(&mut c);
    assert_eq!(c.len(), 3);
    assert!(c.iter().all(|o| (o.probability(&c) - 1.0 / 3.0).abs() < 1e-12));
    s.apply(NimAction::Deal(2)).unwrap();
    s.chance_outcomes(&mut c);
    let actions: Vec<_> = c.iter().map(|o| o.action).collect();
    assert_eq!(actions, [NimAction::Deal(1), NimAction::Deal(3)]);
    s.apply(NimAction::Deal(3)).unwrap();
    assert_eq!(s.turn(), Turn::Player(0));
    s.chance_outcomes(&mut c);
    assert!(c.is_empty());
}

#[test]
fn illegal_apply_is_an_error_and_leaves_the_state_unchanged() {
    let mut s = new(3);
    play(&mut s, &[NimAction::Deal(1), NimAction::Deal(2), NimAction::Take(2)]);
    let before = s;
    for bad in [NimAction::Take(2), NimAction::Deal(3)] {
        let e = s.apply(bad).unwrap_err();
        assert!(matches!(e, NimError::Illegal(a, _) if a == bad), "{e}");
        assert_eq!(s, before);
    }
    s.apply(NimAction::Take(1)).unwrap();
    assert_eq!(s.turn(), Turn::Terminal);
    let end = s;
    assert!(s.apply(NimAction::Take(1)).is_err());
    assert_eq!(s, end);
}

#[test]
fn outcome_scores_and_returns() {
    // seat 1 takes the last stone: 2 + 1 = 3 against seat 0's 3 → draw
    let mut s = new(3);
    play(&mut s, &[NimAction::Deal(3), NimAction::Deal(1), NimAction::Take(1), NimAction::Take(2)]);
    assert_eq!(s.outcome(), Some(Outcome::Draw(Seats::EMPTY.with(0).with(1))));
    let mut r = [9.0; 2];
    s.returns(&mut r);
    assert_eq!(r, [0.5, 0.5]);
    let mut s = new(2);
    play(&mut s, &[NimAction::Deal(2), NimAction::Deal(1), NimAction::Take(2)]);
    assert_eq!(s.outcome(), Some(Outcome::Winner(0)));
    assert_eq!((s.score(0), s.score(1), s.score(7)), (4, 1, 0));
    s.returns(&mut r);
    assert_eq!(r, [1.0, 0.0]);
}

#[test]
fn codec_round_trip_and_unknown_ids() {
    let config = NimConfig::default();
    for id in 0..HiddenNim::num_distinct_actions(&config) as u32 {
        let a = HiddenNim::action_from_id(&config, id).unwrap();
        assert_eq!(HiddenNim::action_id(&config, a), id);
        assert_eq!(a.to_string().parse::<NimAction>().unwrap(), a);
    }
    assert_eq!(HiddenNim::action_from_id(&config, 5), Err(NimError::UnknownId(5)));
    assert!("take 3".parse::<NimAction>().is_err());
    assert!("".parse::<NimAction>().is_err());
    assert!("take x".parse::<NimAction>().unwrap_err().to_string().contains("take x"));
}

#[test]
fn legal_action_mask_marks_exactly_the_legal_ids() {
    let mut s = new(1);
    play(&mut s, &[NimAction::Deal(1), NimAction::Deal(3)]);
    let mut mask = [true; 5];
    assert_eq!(legal_action_mask(&s, &mut mask).unwrap(), 1);
    assert_eq!(mask, [false, false, false, true, false]);
    let mut short = [false; 4];
    assert!(legal_action_mask(&s, &mut short).is_err());
}

#[test]
fn perft_matches_hand_counts() {
    // depth 1: 3 cards; 2: ×2 cards; then takes of 1 or 2 from 5 stones:
    // f(n,k) sequences of k takes: f(5,1)=2, f(5,2)=4, f(5,3)=7, f(5,4)=5.
    let s = new(5);
    let counts: Vec<u64> = (0..=6).map(|d| perft(&s, d)).collect();
    assert_eq!(counts, [1, 3, 6, 12, 24, 42, 30]);
}

#[test]
fn observations_hide_the_other_card_and_determinize_keeps_the_view() {
    let mut s = new(4);
    play(&mut s, &[NimAction::Deal(1), NimAction::Deal(3)]);
    let o0 = s.observation(0).unwrap();
    assert_eq!((o0.own_card, o0.other_card), (1, 0));
    let mut t = [0f32; 6];
    s.write_observation_tensor(1, &mut t).unwrap();
    assert_eq!(t, [4.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(s.observation(2), Err(NimError::Seat(2)));
    assert!(s.write_observation_tensor(0, &mut [0.0; 5]).is_err());
    let mut rng = GameRng::new(1);
    let mut seen = [false; 4];
    for _ in 0..50 {
        let d = s.determinize(0, &mut rng).unwrap();
        assert_eq!(d.observation(0).unwrap(), o0);
        let other = d.observation(1).unwrap().own_card;
        assert_ne!(other, 1);
        seen[other as usize] = true;
    }
    assert_eq!(seen, [false, false, true, true], "both unseen cards are sampled");
}

#[test]
fn conformance_suite_passes_on_the_test_game() {
    for stones in [1, 5, 12] {
        let report = conformance::check::<HiddenNim>(&NimConfig { stones }, 30, 11).unwrap();
        assert_eq!(report.games, 30);
        assert!(report.illegal_checked > 0 && report.determinizations > 0 && report.chance_nodes == 60);
    }
}

/// HiddenNim with one planted defect, to show the suite fails when a promise
/// is broken.
#[derive(Clone, Debug, PartialEq)]
struct Broken {
    inner: HiddenNim,
    defect: Defect,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Defect {
    /// `legal_actions` omits `take 2` although `validate` accepts it.
    OmitsTakeTwo,
    /// `determinize` reveals a different own card to the observer.
    LeakyDeterminize,
    /// `action_from_id` shifts ids.
    BadCodec,
    /// `view_action` hides every deal, even from the seat dealt to.
    HidesOwnDeal,
    /// `random_legal_action` always takes one stone.
    BiasedDraw,
    /// `public_observation` is seat 0's, which shows seat 0's own card.
    PublicOwnCard,
    /// `observation_tensor_bounds` states `[0, 0]` for every entry.
    TightBounds,
}

thread_local!(static DEFECT: std::cell::Cell<Defect> = const { std::cell::Cell::new(Defect::OmitsTakeTwo) });

impl Game for Broken {
    type Config = NimConfig;
    type Action = NimAction;
    type ActionList = <HiddenNim as Game>::ActionList;
    type ChanceList = <HiddenNim as Game>::ChanceList;
    type Observation = <HiddenNim as Game>::Observation;
    type Error = NimError;
    const NAME: &'static str = "broken";
    const RULES_VERSION: u32 = 1;
    fn new_game(c: &NimConfig) -> Result<Self, NimError> {
        Ok(Broken { inner: HiddenNim::new_game(c)?, defect: DEFECT.with(|d| d.get()) })
    }
    fn config(&self) -> &NimConfig {
        self.inner.config()
    }
    fn num_players(&self) -> usize {
        2
    }
    fn turn(&self) -> Turn {
        self.inner.turn()
    }
    fn legal_actions(&self, out: &mut Self::ActionList) {
        self.inner.legal_actions(out);
        if self.defect == Defect::OmitsTakeTwo {
            out.retain(|a| *a != NimAction::Take(2));
        }
    }
    fn chance_outcomes(&self, out: &mut Self::ChanceList) {
        self.inner.chance_outcomes(out)
    }
    fn validate(&self, a: NimAction) -> Result<(), NimError> {
        self.inner.validate(a)
    }
    fn apply_unchecked(&mut self, a: NimAction) {
        self.inner.apply_unchecked(a)
    }
    fn outcome(&self) -> Option<Outcome> {
        self.inner.outcome()
    }
    fn score(&self, seat: usize) -> i32 {
        self.inner.score(seat)
    }
    fn num_distinct_actions(c: &NimConfig) -> usize {
        HiddenNim::num_distinct_actions(c)
    }
    fn max_game_length(c: &NimConfig) -> usize {
        HiddenNim::max_game_length(c)
    }
    fn action_id(c: &NimConfig, a: NimAction) -> u32 {
        HiddenNim::action_id(c, a)
    }
    fn action_from_id(c: &NimConfig, id: u32) -> Result<NimAction, NimError> {
        let shift = u32::from(DEFECT.with(|d| d.get()) == Defect::BadCodec && id == 0);
        HiddenNim::action_from_id(c, id + shift)
    }
    fn observation(&self, seat: usize) -> Result<Self::Observation, NimError> {
        self.inner.observation(seat)
    }
    fn public_observation(&self) -> Option<Self::Observation> {
        match self.defect {
            Defect::PublicOwnCard => self.inner.observation(0).ok(),
            _ => self.inner.public_observation(),
        }
    }
    fn observation_tensor_shape(c: &NimConfig) -> Vec<usize> {
        HiddenNim::observation_tensor_shape(c)
    }
    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), NimError> {
        self.inner.write_observation_tensor(seat, out)
    }
    fn observation_tensor_bounds(c: &NimConfig) -> Option<(Vec<f32>, Vec<f32>)> {
        let len = HiddenNim::observation_tensor_len(c);
        (DEFECT.with(|d| d.get()) == Defect::TightBounds).then(|| (vec![0.0; len], vec![0.0; len]))
    }
    fn random_legal_action(&self, rng: &mut GameRng) -> Option<NimAction> {
        match self.defect {
            Defect::BiasedDraw if matches!(self.turn(), Turn::Player(_)) => Some(NimAction::Take(1)),
            _ => self.inner.random_legal_action(rng),
        }
    }
    fn view_action(&self, viewer: Viewer, a: NimAction) -> Option<NimAction> {
        match (self.defect, a) {
            (Defect::HidesOwnDeal, NimAction::Deal(_)) => None,
            _ => self.inner.view_action(viewer, a),
        }
    }
    fn determinize(&self, observer: usize, rng: &mut GameRng) -> Result<Self, NimError> {
        let mut d = self.clone();
        d.inner = self.inner.determinize(observer, rng)?;
        if self.defect == Defect::LeakyDeterminize {
            // resamples the observer's own card (the card the *other* seat cannot see)
            d.inner = self.inner.determinize(1 - observer, rng)?;
        }
        Ok(d)
    }
}

#[test]
fn conformance_suite_catches_broken_engines() {
    for (defect, needle) in [
        (Defect::OmitsTakeTwo, "take 2"),
        (Defect::LeakyDeterminize, "determinize"),
        (Defect::BadCodec, "decode"),
        (Defect::HidesOwnDeal, "hidden from seat"),
        (Defect::BiasedDraw, "random draw"),
        (Defect::PublicOwnCard, "hidden from spectators"),
        (Defect::TightBounds, "outside its bounds"),
    ] {
        DEFECT.with(|d| d.set(defect));
        let err = conformance::check::<Broken>(&NimConfig { stones: 6 }, 5, 0).unwrap_err();
        assert!(err.to_string().contains(needle), "{defect:?}: {err}");
    }
    DEFECT.with(|d| d.set(Defect::OmitsTakeTwo));
}

#[test]
fn a_bad_id_in_a_played_record_names_its_step() {
    let game = play_game::<HiddenNim>(&NimConfig::default(), &mut [&mut RandomAgent, &mut RandomAgent], 3).unwrap();
    let mut record = game.record.clone();
    record.actions[2] = 99;
    let err = record.replay::<HiddenNim>().unwrap_err();
    assert_eq!(err.step(), Some(2));
    assert!(err.to_string().contains("step 2"), "{err}");
}

#[test]
fn golden_game_for_seed_2024() {
    let mut a = RandomAgent;
    let mut b = RandomAgent;
    let game = play_game::<HiddenNim>(&NimConfig { stones: 9 }, &mut [&mut a, &mut b], 2024).unwrap();
    assert_eq!(game.record.actions, GOLDEN_ACTIONS_SEED_2024);
}
/// Deal 1, deal 2, then take 2, 2, 2, 1, 1, 1 (9 stones).
const GOLDEN_ACTIONS_SEED_2024: [u32; 8] = [0, 1, 4, 4, 4, 3, 3, 3];

#[test]
fn same_seed_same_game_and_record_replays() {
    for seed in 0..50 {
        let g1 =
            play_game::<HiddenNim>(&NimConfig { stones: 7 }, &mut [&mut RandomAgent, &mut RandomAgent], seed).unwrap();
        let g2 =
            play_game::<HiddenNim>(&NimConfig { stones: 7 }, &mut [&mut RandomAgent, &mut RandomAgent], seed).unwrap();
        assert_eq!(g1.record, g2.record);
        assert_eq!(g1.state, g2.state);
        let json = g1.record.to_json();
        let back = GameRecord::from_json::<HiddenNim>(&json).unwrap();
        assert_eq!(back, g1.record);
        assert_eq!(back.replay::<HiddenNim>().unwrap(), g1.state);
        assert!(back.is_complete::<HiddenNim>().unwrap());
    }
}

#[test]
fn corrupted_records_are_typed_errors_naming_the_step() {
    let game = play_game::<HiddenNim>(&NimConfig { stones: 6 }, &mut [&mut RandomAgent, &mut RandomAgent], 1).unwrap();
    let record = game.record;
    // an illegal action: dealing at a player's turn
    let mut r = record.clone();
    r.actions[3] = 0;
    match r.replay::<HiddenNim>() {
        Err(RecordError::IllegalAction { step: 3, action, .. }) => assert_eq!(action, "deal 1"),
        other => panic!("{other:?}"),
    }
    // an unknown id
    let mut r = record.clone();
    r.actions[1] = 1000;
    assert!(matches!(r.replay::<HiddenNim>(), Err(RecordError::UnknownAction { step: 1, id: 1000, .. })));
    // wrong engine, rules and format versions, bad config
    let mut r = record.clone();
    r.engine = "chess".into();
    assert!(matches!(r.replay::<HiddenNim>(), Err(RecordError::WrongEngine { .. })));
    let json = r.to_json();
    assert!(matches!(GameRecord::from_json::<HiddenNim>(&json), Err(RecordError::WrongEngine { .. })));
    let mut r = record.clone();
    r.rules_version = 2;
    assert!(matches!(r.replay::<HiddenNim>(), Err(RecordError::RulesVersion { expected: 1, found: 2 })));
    let mut r = record.clone();
    r.format_version = 0;
    assert!(matches!(r.replay::<HiddenNim>(), Err(RecordError::FormatVersion { .. })));
    let mut r = record.clone();
    r.config.stones = 40;
    let e = r.replay::<HiddenNim>().unwrap_err();
    assert!(matches!(e, RecordError::InvalidConfig(_)) && e.to_string().contains("40"), "{e}");
    // malformed JSON and truncated text
    let json = record.to_json();
    assert!(matches!(GameRecord::from_json::<HiddenNim>(&json[..json.len() / 2]), Err(RecordError::Json(_))));
    assert!(matches!(RecordHeader::from_json("[1,2]"), Err(RecordError::Json(_))));
    assert_eq!(RecordHeader::from_json(&json).unwrap().engine, "hidden-nim");
    // a truncated game replays but is not complete
    let mut r = record.clone();
    r.actions.truncate(3);
    assert!(!r.is_complete::<HiddenNim>().unwrap());
}

struct Cheater;
impl Agent<HiddenNim> for Cheater {
    fn name(&self) -> String {
        "cheater".into()
    }
    fn act(&mut self, _: &HiddenNim, _: usize, _: &mut GameRng) -> NimAction {
        NimAction::Take(2)
    }
}

#[test]
fn driver_rejects_illegal_agent_actions_and_wrong_agent_counts() {
    let e = play_game::<HiddenNim>(&NimConfig { stones: 3 }, &mut [&mut Cheater, &mut Cheater], 0).unwrap_err();
    assert!(matches!(e, PlayError::IllegalAgentAction { step: 3, seat: 1, .. }), "{e}");
    let e = play_game::<HiddenNim>(&NimConfig { stones: 3 }, &mut [&mut RandomAgent], 0).unwrap_err();
    assert!(matches!(e, PlayError::AgentCount { seats: 2, agents: 1 }));
}

#[test]
fn decision_positions_takes_every_nth_decision_of_the_agents_game() {
    let start = new(12);
    let all = |seed| {
        let (mut a, mut b) = (FirstAgent, FirstAgent);
        let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut a, &mut b];
        decision_positions(start, &mut agents, &mut GameRng::new(seed), 1, usize::MAX).unwrap()
    };
    for seed in 0..10 {
        let every = all(seed);
        // the whole game: every decision, in order, each with its seat to move
        assert!(every.len() >= 6, "12 stones take at least six decisions");
        for (state, seat) in &every {
            assert_eq!(state.turn(), Turn::Player(*seat));
        }
        let mut last = every.last().unwrap().0;
        let mut list = <HiddenNim as Game>::ActionList::default();
        last.legal_actions(&mut list);
        last.apply(list[0]).unwrap();
        assert!(last.is_terminal() || last.turn() == Turn::Chance, "nothing is left out at the end");
        // every third one, at most two; `every` 0 counts as 1
        let (mut a, mut b) = (FirstAgent, FirstAgent);
        let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut a, &mut b];
        let some = decision_positions(start, &mut agents, &mut GameRng::new(seed), 3, 2).unwrap();
        assert_eq!(some, vec![every[0], every[3]]);
        let zero = decision_positions(start, &mut agents, &mut GameRng::new(seed), 0, usize::MAX).unwrap();
        assert_eq!(zero, every);
        assert!(decision_positions(start, &mut agents, &mut GameRng::new(seed), 1, 0).unwrap().is_empty());
    }
    assert_ne!(all(0), all(1), "the seed draws the chance nodes");
    // the driver's refusals
    let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut Cheater, &mut Cheater];
    let e = decision_positions(new(3), &mut agents, &mut GameRng::new(0), 1, 100).unwrap_err();
    assert!(matches!(e, PlayError::IllegalAgentAction { step: 3, seat: 1, .. }), "{e}");
    let e = decision_positions(new(3), &mut [&mut RandomAgent], &mut GameRng::new(0), 1, 100).unwrap_err();
    assert!(matches!(e, PlayError::AgentCount { seats: 2, agents: 1 }), "{e}");
}

#[test]
fn playout_ends_the_game_and_is_reproducible() {
    for seed in 0..20 {
        let mut a = new(10);
        let mut b = new(10);
        let na = playout(&mut a, &mut GameRng::new(seed), usize::MAX);
        let nb = playout(&mut b, &mut GameRng::new(seed), usize::MAX);
        assert_eq!((na, a), (nb, b));
        assert!(a.is_terminal());
        assert!(na <= HiddenNim::max_game_length(a.config()));
    }
    let mut s = new(10);
    assert_eq!(playout(&mut s, &mut GameRng::new(0), 2), 2);
    assert_eq!(s.turn(), Turn::Player(0));
}

#[test]
fn arena_is_reproducible_whatever_the_threads_and_shards() {
    let arena = Arena::<HiddenNim>::new(NimConfig { stones: 8 });
    let entrants = [Entrant::new("first", || Box::new(RandomAgent)), Entrant::new("second", || Box::new(RandomAgent))];
    let one = arena.run(&entrants, 0..300, 1).unwrap();
    let two = arena.run(&entrants, 0..300, 2).unwrap();
    assert_eq!(one, two);
    let mut merged = arena.run(&entrants, 0..100, 1).unwrap();
    merged.merge(&arena.run(&entrants, 100..300, 2).unwrap()).unwrap();
    assert_eq!(merged, one);
    assert_eq!(one.games, 300);
    for e in &one.entrants {
        assert_eq!(e.games, 300);
        assert_eq!(e.wins + e.draws + e.losses(), 300);
    }
    // draws are shared: both entrants count the same draws
    assert_eq!(one.entrants[0].draws, one.entrants[1].draws);
    // win shares: a win is 1, a two-way draw 1/2 each; the shares of a game sum to 1
    let units: u64 = one.entrants.iter().map(|e| e.share_units).sum();
    assert_eq!(units, 300 * SHARE_UNIT);
    let e = &one.entrants[0];
    assert_eq!(e.share_units, e.wins * SHARE_UNIT + e.draws * SHARE_UNIT / 2);
    let (lo, hi) = e.win_share_interval();
    assert!(lo < e.win_share() && e.win_share() < hi && hi - lo < 0.12, "{lo} {hi}");
    // a perfect record still gets an interval below 100%
    let perfect = perfect_record();
    let (lo, hi) = perfect.win_share_interval();
    assert!(lo > 0.99 && lo < 1.0 && hi == 1.0, "{lo} {hi}");
    let other = Arena::<HiddenNim>::new(NimConfig { stones: 8 }).run(&entrants, 1..301, 1).unwrap();
    assert_ne!(other, one, "different seeds give different results");
}

#[test]
fn arena_rotates_seats() {
    let arena = Arena::<HiddenNim>::new(NimConfig::default());
    assert_eq!((arena.seat_of(0, 0, 2), arena.seat_of(0, 1, 2), arena.seat_of(1, 1, 2)), (0, 1, 0));
    let fixed = Arena::<HiddenNim>::new(NimConfig::default()).rotate_seats(false);
    assert_eq!(fixed.seat_of(0, 1, 2), 0);
}

#[test]
fn wilson_interval_brackets_the_rate() {
    let (lo, hi) = wilson_interval(50, 100, 1.96);
    assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3, "{lo} {hi}");
    assert_eq!(wilson_interval(0, 0, 1.96), (0.0, 1.0));
    let (lo, hi) = wilson_interval(0, 10, 1.96);
    assert_eq!(lo, 0.0);
    assert!(hi > 0.2 && hi < 0.35);
}

mod strategies {
    use super::*;
    use boardgame_kit::strategy::{random_walk, reachable_state, reachable_walk};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn reachable_states_are_reachable(walk in reachable_walk::<HiddenNim>(NimConfig { stones: 9 }, 12)) {
            let mut record = GameRecord::new::<HiddenNim>(NimConfig { stones: 9 }, Some(walk.seed));
            record.actions = walk.actions.clone();
            prop_assert_eq!(record.replay::<HiddenNim>().unwrap(), walk.state);
        }

        #[test]
        fn scores_are_bounded(state in reachable_state::<HiddenNim>(NimConfig { stones: 9 }, 12)) {
            prop_assert!(state.score(0) + state.score(1) <= 7);
        }
    }

    #[test]
    fn walks_are_deterministic() {
        let a = random_walk::<HiddenNim>(&NimConfig::default(), 5, 6);
        let b = random_walk::<HiddenNim>(&NimConfig::default(), 5, 6);
        assert_eq!(a.actions, b.actions);
        assert_eq!(a.state, b.state);
    }
}

#[test]
fn byte_driven_checks_pass_and_catch_defects() {
    let config = NimConfig { stones: 9 };
    let bytes: Vec<u8> = (0..200u32).map(|i| (i * 37 % 256) as u8).collect();
    let applied = conformance::check_action_bytes::<HiddenNim>(&config, &bytes, |_| Ok(())).unwrap();
    assert!(applied > 0);
    // an invariant that fails once a stone is taken is reported
    let all_legal = [0xff_u8; 40];
    let err = conformance::check_action_bytes::<HiddenNim>(&config, &all_legal, |s| {
        if s.observation(0).map(|o| o.stones).unwrap_or(0) < 9 { Err("a stone was taken".into()) } else { Ok(()) }
    })
    .unwrap_err();
    assert!(err.message.contains("a stone was taken"), "{err}");
    DEFECT.with(|d| d.set(Defect::OmitsTakeTwo));
    let err = conformance::check_action_bytes::<Broken>(&config, &[0, 0, 1, 0, 3, 0, 4, 0], |_| Ok(())).unwrap_err();
    assert!(err.message.contains("unlisted action take 2"), "{err}");
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_break_the_contract(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
        conformance::check_action_bytes::<HiddenNim>(&NimConfig { stones: 12 }, &bytes, |_| Ok(())).unwrap();
    }
}

fn perfect_record() -> boardgame_kit::EntrantStats {
    boardgame_kit::EntrantStats {
        name: "perfect".into(),
        games: 1000,
        wins: 1000,
        draws: 0,
        score_sum: 0,
        share_units: 1000 * SHARE_UNIT,
    }
}

/// Always the first listed action: deterministic, draws nothing.
struct FirstAgent;

impl<G: Game> Agent<G> for FirstAgent {
    fn name(&self) -> String {
        "first".into()
    }
    fn act(&mut self, state: &G, _seat: usize, _rng: &mut GameRng) -> G::Action {
        let mut list = G::ActionList::default();
        state.legal_actions(&mut list);
        list[0]
    }
}

#[test]
fn the_driver_plays_the_game_play_game_plays() {
    let config = NimConfig { stones: 9 };
    for seed in 0..40 {
        let (mut a, mut b) = (RandomAgent, RandomAgent);
        let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut a, &mut b];
        let played = play_game::<HiddenNim>(&config, &mut agents, seed).unwrap();
        let mut driver = Driver::<HiddenNim>::new(&config, seed).unwrap();
        while driver.step(&mut agents).unwrap().is_some() {}
        assert_eq!(driver.state(), &played.state);
        assert_eq!(driver.record().unwrap().actions, played.record.actions);
        assert_eq!(driver.steps(), played.record.actions.len());
        assert_eq!(driver.step(&mut agents).unwrap(), None, "nothing is played after the end");
    }
}

#[test]
fn the_driver_refuses_what_is_illegal_and_changes_nothing() {
    let mut driver = Driver::<HiddenNim>::new(&NimConfig { stones: 3 }, 5).unwrap();
    let before = *driver.state();
    assert!(driver.apply(NimAction::Take(1)).is_err(), "cards are dealt first");
    assert!(matches!(driver.step_agent(&mut RandomAgent), Err(PlayError::NotAPlayersTurn { step: 0, .. })));
    assert_eq!(driver.state(), &before);
    assert_eq!(driver.record().unwrap().actions.len(), 0);
    assert!(driver.step_chance().is_some());
    assert!(driver.step_chance().is_some());
    assert_eq!(driver.step_chance(), None, "no chance node");
    driver.apply(NimAction::Take(2)).unwrap();
    assert_eq!(driver.record().unwrap().actions.len(), 3);
    assert!(Driver::<HiddenNim>::new(&NimConfig { stones: 0 }, 1).is_err());
}

#[test]
fn a_resumed_game_continues_as_the_uninterrupted_one() {
    let config = NimConfig { stones: 12 };
    for seed in 0..30 {
        for cut in 0..6 {
            let mut whole = Driver::<HiddenNim>::new(&config, seed).unwrap();
            let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut FirstAgent, &mut FirstAgent];
            while whole.step(&mut agents).unwrap().is_some() {}
            let mut part = Driver::<HiddenNim>::new(&config, seed).unwrap();
            for _ in 0..cut {
                part.step(&mut agents).unwrap();
            }
            let json = part.record().unwrap().to_json();
            let record = GameRecord::from_json::<HiddenNim>(&json).unwrap();
            let mut resumed = Driver::<HiddenNim>::from_record(&record).unwrap();
            assert_eq!(resumed.state(), part.state());
            while resumed.step(&mut agents).unwrap().is_some() {}
            assert_eq!(resumed.record().unwrap().actions, whole.record().unwrap().actions, "seed {seed} cut {cut}");
        }
    }
    let mut bad = GameRecord::new::<HiddenNim>(config, Some(1));
    bad.actions = vec![0, 0];
    assert_eq!(Driver::<HiddenNim>::from_record(&bad).unwrap_err().step(), Some(1));
}

#[test]
fn hidden_nim_shows_a_deal_to_the_seat_dealt_to_alone() {
    let mut s = HiddenNim::new_game(&NimConfig::default()).unwrap();
    let deal = NimAction::Deal(2);
    assert_eq!(s.view_action(Viewer::Seat(0), deal), Some(deal));
    assert_eq!(s.view_action(Viewer::Seat(1), deal), None);
    assert_eq!(s.view_action(Viewer::Spectator, deal), None);
    s.apply(deal).unwrap();
    assert_eq!(s.view_action(Viewer::Seat(0), NimAction::Deal(3)), None);
    assert_eq!(s.view_action(Viewer::Seat(1), NimAction::Deal(3)), Some(NimAction::Deal(3)));
    s.apply(NimAction::Deal(3)).unwrap();
    assert_eq!(s.view_action(Viewer::Spectator, NimAction::Take(1)), Some(NimAction::Take(1)));
}

#[test]
fn outcomes_from_seats_and_scores() {
    assert_eq!(Outcome::from_best(&[1, 5, 5, 2]), Some(Outcome::Draw(Seats::from_bits(0b0110))));
    assert_eq!(Outcome::from_best(&[-3, -1]), Some(Outcome::Winner(1)));
    assert_eq!(Outcome::from_seats(Seats::from_bits(0b1000)), Some(Outcome::Winner(3)));
    let many: Vec<i32> = (0..20).collect();
    assert_eq!(Outcome::from_best(&many), Some(Outcome::Winner(15)), "seats past 16 are ignored");
}

#[test]
fn seats_are_built_and_read_through_their_methods() {
    let seats: Seats = [4, 1, 16, 99, 1].into_iter().collect();
    assert_eq!(seats, Seats::EMPTY.with(1).with(4), "seats from 16 on are ignored, repeats count once");
    assert_eq!(seats.bits(), 0b1_0010);
    assert_eq!(Seats::from_bits(seats.bits()), seats);
    assert_eq!(seats.iter().collect::<Vec<_>>(), [1, 4]);
    assert_eq!(seats.iter().len(), 2);
    let mut looped = Vec::new();
    for seat in seats {
        looped.push(seat);
    }
    assert_eq!(looped, [1, 4]);
    let all = Seats::from_bits(u16::MAX);
    assert_eq!((all.len(), all.iter().last()), (16, Some(15)));
    assert_eq!(Seats::EMPTY.iter().next(), None);
    // It serializes as its bitmask, as when the field was public.
    assert_eq!(serde_json::to_string(&seats).unwrap(), "18");
    assert_eq!(serde_json::from_str::<Seats>("18").unwrap(), seats);
}

#[test]
fn outcomes_and_seats_read_as_words() {
    let seats = |list: &[usize]| list.iter().fold(Seats::EMPTY, |s, &seat| s.with(seat));
    assert_eq!(seats(&[]).to_string(), "no seat");
    assert_eq!(seats(&[0]).to_string(), "seat 0");
    assert_eq!(seats(&[1, 4]).to_string(), "seats 1, 4");
    assert_eq!(seats(&[15, 0, 7]).to_string(), "seats 0, 7, 15");
    assert_eq!(Outcome::Winner(2).to_string(), "seat 2 wins");
    assert_eq!(Outcome::Draw(seats(&[1, 4])).to_string(), "draw between seats 1, 4");
    assert_eq!(Outcome::Draw(seats(&[0, 1, 2])).to_string(), "draw between seats 0, 1, 2");
    assert_eq!(Outcome::Draw(seats(&[3])).to_string(), "draw, seat 3 alone");
    assert_eq!(Outcome::Draw(Seats::EMPTY).to_string(), "draw, no seat wins");
}

#[test]
fn arena_sums_never_wrap_and_more_threads_than_seeds_at_the_top_of_the_range_play_each_seed_once() {
    let arena = Arena::<HiddenNim>::new(NimConfig { stones: 4 });
    let entrants = [Entrant::new("random", || Box::new(RandomAgent)), Entrant::new("random", || Box::new(RandomAgent))];
    let report = arena.run(&entrants, u64::MAX - 2..u64::MAX, 5).unwrap();
    assert_eq!(report.games, 2);
    assert_eq!(report.entrants[0].games, 2);

    let big = boardgame_kit::EntrantStats { name: "x".into(), games: u64::MAX, wins: 1, ..Default::default() };
    assert_eq!(big.checked_merge(&big), None);
    let mut sum = big.clone();
    sum.merge(&big);
    assert_eq!(sum.games, u64::MAX, "saturates");
    let odd = boardgame_kit::EntrantStats { name: "x".into(), games: 1, wins: 2, draws: 1, ..Default::default() };
    assert_eq!(odd.losses(), 0);
    let huge = boardgame_kit::EntrantStats {
        name: "x".into(),
        games: 1 << 45,
        share_units: (1 << 44) * SHARE_UNIT,
        ..Default::default()
    };
    assert!((huge.win_share() - 0.5).abs() < 1e-12);
}
