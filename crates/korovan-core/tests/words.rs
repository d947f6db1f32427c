//! The words people read (`boardgame_kit::Words`): over random games of
//! 3..=9 players, no seat's or spectator's words reveal what its
//! `view_action` hides (K-8: a deal is the driver's, a lay its layer's),
//! the words of shown actions tell them apart, and both languages have
//! every phrase; a few exact phrases pin the wording.

use boardgame_kit::{Game, Lang, Viewer, Words, check_words, check_words_in_game};
use korovan_core::{Action, AmbushSet, Helper, Korovan, KorovanConfig, Phase};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// K-8.2, K-8.3, K-3.1, K-4.3: hidden actions read alike for whoever
    /// may not see them.
    #[test]
    fn words_hide_exactly_what_view_action_hides(n in 3u8..=9, first in 0u8..9, seed: u64) {
        let c = KorovanConfig { players: n, first_driver: first % n, ..KorovanConfig::default() };
        let r = check_words_in_game::<Korovan>(&c, seed, 10_000);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

fn start(n: u8) -> Korovan {
    Korovan::new_game(&KorovanConfig { players: n, ..KorovanConfig::default() }).unwrap()
}

#[test]
fn a_deal_names_its_card_to_the_driver_alone() {
    // K-3.1
    let g = start(4);
    assert_eq!(g.phase(), Phase::Deal);
    let d = g.driver().unwrap();
    let a = Action::Deal(Helper::Scout);
    assert_eq!(g.words(Viewer::Seat(d), a, Lang::En), "Draw a helper card: Scout");
    assert_eq!(g.words(Viewer::Seat(d), a, Lang::Ru), "Взять карту помощника: Разведчик");
    for v in [Viewer::Seat((d + 1) % 4), Viewer::Spectator] {
        assert_eq!(g.words(v, a, Lang::En), "The driver draws a helper card");
        assert_eq!(g.words(v, Action::Deal(Helper::Guard), Lang::Ru), "Корованщик берёт карту помощника");
    }
    check_words(&g).unwrap();
}

/// Plays the deal and the first lay by the first legal action.
fn to_first_peek(n: u8) -> Korovan {
    let mut g = start(n);
    let mut list = korovan_core::ActionList::default();
    while g.phase() != Phase::Peek {
        g.legal_actions(&mut list);
        g.apply(list[0]).unwrap();
    }
    g
}

#[test]
fn peeks_and_lays_read_in_rows_from_1_and_cards_left_to_right() {
    let g = to_first_peek(4);
    // K-4.2: the second competitor peeks at row 1.
    let peek = Action::Peek { row: 1, pos: 1 };
    assert_eq!(g.words(Viewer::Spectator, peek, Lang::En), "Peek at row 1, middle card");
    assert_eq!(g.words(Viewer::Spectator, peek, Lang::Ru), "Подсмотреть карту: ряд 1, средняя карта");
    let mut g = g;
    g.apply(peek).unwrap();
    // K-4.3: a lay is its layer's.
    let lay = Action::Lay(AmbushSet::from_mask(0b101).unwrap());
    let layer = g.row_owner(2).unwrap();
    assert_eq!(
        g.words(Viewer::Seat(layer), lay, Lang::En),
        "Lay the row with two ambushes, on the left and on the right (keep an Empty: fine 2)"
    );
    assert_eq!(
        g.words(Viewer::Seat(layer), lay, Lang::Ru),
        "Выложить ряд с двумя засадами слева и справа (на руке «Пусто»: штраф 2)"
    );
    assert_eq!(g.words(Viewer::Seat((layer + 1) % 4), lay, Lang::En), "Lay a row face down");
    assert_eq!(g.words(Viewer::Spectator, lay, Lang::Ru), "Выложить ряд рубашкой вверх");
    check_words(&g).unwrap();
}

#[test]
fn the_catalogues_have_every_helper_and_cell() {
    use korovan_core::words::{EN, RU};
    for p in [&EN, &RU] {
        assert_eq!(p.helpers.len(), Helper::ALL.len());
        assert!(p.helpers.iter().chain(p.cell.iter()).chain(p.side.iter()).all(|s| !s.is_empty()));
    }
}

/// The summary is the rules file's marked section in each language, and
/// every rule id it cites is a rule of that file.
#[test]
fn how_to_play_is_drawn_from_the_rules_and_cites_real_rules() {
    let rules = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules/korovan.md")).unwrap();
    for lang in Lang::ALL {
        let text = <Korovan as Words>::how_to_play(lang);
        assert!(text.len() > 200, "{lang:?}: {text:?}");
        assert!(rules.contains(text), "{lang:?}: not the rules file's text");
        let ids: Vec<&str> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
            .filter(|w| w.starts_with("K-") && w.len() > 2)
            .map(|w| w.trim_end_matches('.'))
            .collect();
        assert!(ids.len() >= 5, "{lang:?}: {ids:?}");
        for id in ids {
            let rule = format!("- {id} ");
            let section = format!("## {id} ");
            assert!(rules.contains(&rule) || rules.contains(&section), "{lang:?} cites {id}, which is no rule");
        }
    }
}

/// K-5.5, K-5.7, K-7.2: the action that ends a round says what happened to
/// the cows, and the last one says the game is over.
#[test]
fn round_ends_are_summed_up() {
    let c = KorovanConfig { players: 3, ..KorovanConfig::default() };
    let mut g = Korovan::new_game(&c).unwrap();
    let mut rng = boardgame_kit::GameRng::new(9);
    let mut ends = Vec::new();
    while !g.is_terminal() {
        let a = boardgame_kit::random_action(&g, &mut rng).unwrap();
        let before = g;
        g.apply(a).unwrap();
        if g.round() != before.round() {
            ends.push((before, a, g));
        }
    }
    assert_eq!(ends.len(), 3);
    for (before, a, after) in &ends {
        let w = before.words(Viewer::Spectator, *a, Lang::En);
        let cows: Vec<String> = (0..3).map(|s| format!("seat {s} {}", after.cows(s))).collect();
        let round = format!("round {} is over; cows now: {}", before.round() + 1, cows.join(", "));
        assert!(w.contains(&round), "{w}");
        let d = before.driver().unwrap();
        let tolled = after.cows(d) > 0 && (0..3).filter(|&s| s != d).all(|s| after.cows(s) < before.cows(s));
        if tolled && !matches!(a, Action::Pay | Action::Haggle) {
            assert!(w.contains("pay 1 cow each as toll (K-5.7)"), "{w}");
        }
        let ru = before.words(Viewer::Seat(0), *a, Lang::Ru);
        assert!(ru.contains(&format!("раунд {} окончен", before.round() + 1)), "{ru}");
    }
    let (before, a, _) = ends.last().unwrap();
    assert!(before.words(Viewer::Seat(1), *a, Lang::En).ends_with("the game is over (K-7.2)"));
}
