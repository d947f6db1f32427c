//! The words people read (`boardgame_kit::Words`): over random games of
//! 2..=4 players, every viewer reads every action (C-8.1), the words of
//! the legal actions tell them apart in both languages, and a few exact
//! phrases pin the wording (squares `c4`, spaces 1..8, seats from 0).

use boardgame_kit::strategy::random_walk;
use boardgame_kit::{Game, Lang, Viewer, Words, check_words, check_words_in_game};
use caravan_core::{Action, Caravan, CaravanConfig};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// C-8.1: nothing is hidden, and no two legal actions read alike, in
    /// states anywhere in a game (a full game is checked below).
    #[test]
    fn words_show_every_action_and_tell_them_apart(players in 2u8..=4, seed: u64, steps in 0usize..3000) {
        let w = random_walk::<Caravan>(&CaravanConfig::with_players(players), seed, steps);
        let r = check_words(&w.state);
        prop_assert!(r.is_ok(), "seed {seed}, {steps} steps: {}", r.unwrap_err());
    }
}

#[test]
fn the_opening_reads_in_words() {
    let mut g = Caravan::new_game(&CaravanConfig::with_players(3)).unwrap();
    // C-3.1: the setup draws fill spaces 1..8 in order.
    let draw: Action = "draw R2".parse().unwrap();
    assert_eq!(g.words(Viewer::Spectator, draw, Lang::En), "Draw R2 from the bag onto space 1");
    assert_eq!(g.words(Viewer::Seat(1), draw, Lang::Ru), "Из мешка: товар R2 на место 1");
    let mut rng = boardgame_kit::GameRng::new(3);
    while g.turn() == boardgame_kit::Turn::Chance {
        let a = boardgame_kit::random_action(&g, &mut rng).unwrap();
        g.apply(a).unwrap();
    }
    let place: Action = "move supply->c4".parse().unwrap();
    assert_eq!(g.words(Viewer::Seat(0), place, Lang::En), "Place a camel from the supply on c4");
    assert_eq!(g.words(Viewer::Seat(0), place, Lang::Ru), "Поставить верблюда из запаса на c4");
    assert_eq!(g.words(Viewer::Seat(2), Action::END, Lang::Ru), "Закончить ход");
    check_words(&g).unwrap();
}

#[test]
fn a_whole_game_reads_in_words() {
    check_words_in_game::<Caravan>(&CaravanConfig::with_players(2), 11, 100_000).unwrap();
}

/// The summary is the rules file's marked section in each language, and
/// every rule id it cites is a rule of that file.
#[test]
fn how_to_play_is_drawn_from_the_rules_and_cites_real_rules() {
    let rules = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules/caravan.md")).unwrap();
    for lang in Lang::ALL {
        let text = <Caravan as Words>::how_to_play(lang);
        assert!(text.len() > 200, "{lang:?}: {text:?}");
        assert!(rules.contains(text), "{lang:?}: not the rules file's text");
        let ids: Vec<&str> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
            .filter(|w| w.starts_with("C-") && w.len() > 2)
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

/// C-6.1: the pick-up that starts a refill says what the refill does, and
/// the draws that follow name the spaces they fill.
#[test]
fn a_refill_is_told() {
    let mut g = Caravan::new_game(&CaravanConfig::with_players(2)).unwrap();
    let mut rng = boardgame_kit::GameRng::new(5);
    let mut told = 0;
    while !g.is_terminal() && told < 3 {
        let mut list = caravan_core::ActionList::default();
        g.legal_actions(&mut list);
        // prefer pick-ups, so refills come soon
        let a = list
            .iter()
            .copied()
            .find(|a| a.to_string().starts_with("pick"))
            .or_else(|| boardgame_kit::random_action(&g, &mut rng))
            .unwrap();
        let refill = a.to_string().starts_with("pick") && g.picks_since_refill() == 3 && g.bag_len() > 0;
        let w = g.words(Viewer::Spectator, a, Lang::En);
        assert_eq!(refill, w.contains("a refill follows"), "{w}");
        g.apply(a).unwrap();
        if refill {
            told += 1;
            let pending: Vec<String> =
                (1..=8u8).filter(|n| g.pending_draws() & (1 << (n - 1)) != 0).map(|n| n.to_string()).collect();
            assert!(
                w.contains(&format!("goods from the bag onto spaces {} (C-6.1)", pending.join(", "))),
                "{w} / {pending:?}"
            );
            let marked: Vec<String> = (1..=8u8).filter(|&n| g.lying(n).is_some()).map(|n| n.to_string()).collect();
            assert!(w.contains(&format!("demand marker on the goods of spaces {}", marked.join(", "))), "{w}");
        }
    }
    assert!(told > 0, "no refill happened");
}
