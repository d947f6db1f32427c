//! The lab end to end: tiny studies of both engines write every report file,
//! the same seeds give byte-identical reports (whatever the threads), shards
//! merge into the whole, and a treatment that forces nothing replays the
//! arena's own game.

use std::path::{Path, PathBuf};

use boardgame_kit::{Arena, Entrant, Game};
use boardgame_lab::worth::{Treatment, play_treated};
use boardgame_lab::{DealKind, Engine, LabError, LabResults, Study, markdown, run_study, write_report};
use caravan_core::{Caravan, CaravanConfig, CaravanHeuristic};
use korovan_core::{Helper, Korovan, KorovanConfig, KorovanHeuristic};

fn heuristic(players: usize) -> Result<Vec<Entrant<Korovan>>, LabError> {
    Ok((0..players).map(|_| Entrant::new("heuristic", || Box::new(KorovanHeuristic::default()))).collect())
}

fn korovan_study(seeds: std::ops::Range<u64>, threads: usize) -> Study<Korovan> {
    Study {
        base: KorovanConfig::default(),
        sweeps: vec!["players=3..4".parse().unwrap(), "deck.scout=0,8".parse().unwrap()],
        seeds,
        threads,
        worth: true,
        worth_seeds: 0..12,
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("boardgame-lab-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read_all(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_tiny_sweep_writes_the_report_files() {
    let results = run_study(&korovan_study(0..16, 2), &heuristic, &|| {}).unwrap();
    assert_eq!(results.cells.len(), 4);
    assert!(results.cells.iter().all(|c| c.games == 16 && c.seats.iter().all(|s| s.games == 16)));
    // Win shares of one game sum to one over the seats.
    for c in &results.cells {
        let units: u64 = c.seats.iter().map(|s| s.share_units).sum();
        assert_eq!(units, c.games * boardgame_kit::SHARE_UNIT, "{}", c.label());
    }
    let dir = temp_dir("tiny");
    let files = write_report(&results, &dir).unwrap();
    let names: Vec<String> = files.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(
        names,
        [
            "report.md",
            "results.json",
            "seats.svg",
            "lead.svg",
            "sweep-players.svg",
            "sweep-deck-scout.svg",
            "length.svg",
            "worth.svg"
        ]
    );
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if f.extension().is_some_and(|e| e == "svg") {
            assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"), "{}", f.display());
            assert!(text.contains("<text"), "{}: charts carry their labels", f.display());
        }
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for needle in [
        "# Balance: korovan",
        "## Seat win shares",
        "## First driver advantage",
        "## Against `deck.scout`",
        "## Game length",
        "## Card worth",
        "![seat win shares](seats.svg)",
        "players=4, deck.scout=8",
        "| scout | 12 |",
    ] {
        assert!(md.contains(needle), "report lacks {needle:?}:\n{md}");
    }
    let back: LabResults = serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(back, results);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_seed_gives_the_same_report_byte_for_byte() {
    let a = run_study(&korovan_study(5..17, 1), &heuristic, &|| {}).unwrap();
    let b = run_study(&korovan_study(5..17, 3), &heuristic, &|| {}).unwrap();
    assert_eq!(a, b, "threads change nothing");
    let (da, db) = (temp_dir("same-a"), temp_dir("same-b"));
    write_report(&a, &da).unwrap();
    write_report(&b, &db).unwrap();
    let (fa, fb) = (read_all(&da), read_all(&db));
    assert_eq!(fa.len(), 8);
    assert_eq!(fa, fb);
    // Other seeds give other results.
    let c = run_study(&korovan_study(100..112, 2), &heuristic, &|| {}).unwrap();
    assert_ne!(markdown(&a, ""), markdown(&c, ""));
    std::fs::remove_dir_all(&da).unwrap();
    std::fs::remove_dir_all(&db).unwrap();
}

#[test]
fn shards_merge_into_the_whole() {
    let whole = run_study(&korovan_study(0..20, 2), &heuristic, &|| {}).unwrap();
    let mut first = run_study(&Study { worth_seeds: 0..5, ..korovan_study(0..8, 2) }, &heuristic, &|| {}).unwrap();
    let second = run_study(&Study { worth_seeds: 5..12, ..korovan_study(8..20, 1) }, &heuristic, &|| {}).unwrap();
    first.merge(&second).unwrap();
    assert_eq!(first, whole);
    let err = first.merge(&second).unwrap_err().to_string();
    assert!(err.contains("overlap"), "{err}");
    let other = run_study(&Study { sweeps: vec![], ..korovan_study(30..32, 1) }, &heuristic, &|| {}).unwrap();
    assert!(first.merge(&other).is_err());
}

#[test]
fn a_treatment_that_forces_nothing_replays_the_arena_game() {
    struct Never;
    impl Treatment<Korovan> for Never {
        fn name(&self) -> String {
            "never".into()
        }
        fn force(&self, _: &Korovan, _: usize) -> Option<korovan_core::Action> {
            None
        }
    }
    let config = KorovanConfig::with_players(4);
    let arena = Arena::<Korovan>::new(config);
    let entrants = heuristic(4).unwrap();
    for seed in 0..10 {
        let played = arena.play_one(&entrants, seed).unwrap();
        let (plain, forced) = play_treated(&config, &entrants, &arena, seed, None).unwrap();
        assert!(!forced);
        assert_eq!(plain, played.state, "seed {seed}");
        let (never, _) = play_treated(&config, &entrants, &arena, seed, Some((&Never, 1))).unwrap();
        assert_eq!(never, played.state, "seed {seed}");
    }
}

#[test]
fn k3_1_dealing_a_kind_forces_the_targets_first_card() {
    let config = KorovanConfig::with_players(5);
    let arena = Arena::<Korovan>::new(config);
    let entrants = heuristic(5).unwrap();
    // Spy: every seat drives once (K-7.2), so the target is dealt a spy once.
    let treatment = DealKind(Helper::Spy);
    assert_eq!(treatment.name(), "spy");
    let (_, forced) = play_treated(&config, &entrants, &arena, 3, Some((&treatment, 2))).unwrap();
    assert!(forced);
    let fresh = Korovan::new_game(&config).unwrap();
    assert_eq!(treatment.force(&fresh, 0), Some(korovan_core::Action::Deal(Helper::Spy)), "seat 0 drives first");
    assert_eq!(treatment.force(&fresh, 1), None, "seat 1 does not drive now");
    let no_spy = KorovanConfig { deck: config.deck.with(Helper::Spy, 0), ..config };
    assert_eq!(Korovan::treatments(&no_spy).len(), 5, "no treatment for a kind the deck lacks");
    assert_eq!(Korovan::treatments(&config).len(), 6);
}

#[test]
fn k2_2_the_driver_passes_counter_clockwise() {
    let c = KorovanConfig { first_driver: 2, ..KorovanConfig::with_players(5) };
    assert_eq!(Korovan::turn_order(&c, 5), vec![2, 1, 0, 4, 3]);
    assert_eq!(Caravan::turn_order(&CaravanConfig::with_players(3), 3), vec![0, 1, 2]);
    assert_eq!(Korovan::LEAD_ROLE, "first driver");
    assert_eq!(Caravan::LEAD_ROLE, "first player");
}

#[test]
fn caravan_sweeps_its_camels() {
    let study = Study::<Caravan> {
        base: CaravanConfig::with_players(2),
        sweeps: vec!["camels=5,6".parse().unwrap()],
        seeds: 0..4,
        threads: 2,
        worth: true,
        worth_seeds: 0..2,
    };
    let make = |players: usize| -> Result<Vec<Entrant<Caravan>>, LabError> {
        Ok((0..players).map(|_| Entrant::new("heuristic", || Box::new(CaravanHeuristic::new()))).collect())
    };
    let results = run_study(&study, &make, &|| {}).unwrap();
    assert_eq!(results.lead_role, "first player");
    assert_eq!(results.cells.len(), 2);
    assert_eq!(results.cells[1].config["camels"], 6);
    assert!(results.worth.as_ref().unwrap().treatments.is_empty(), "Caravan has no card treatments");
    let dir = temp_dir("caravan");
    let files = write_report(&results, &dir).unwrap();
    assert!(files.iter().all(|f| f.exists()));
    assert!(!dir.join("worth.svg").exists());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("caravan has no card-worth treatment"), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}
