//! Shared bodies of the fuzz targets. The facade's `tests/trust.rs` includes
//! this file and runs the same bodies as proptests in CI, so CI catches
//! regressions without the fuzzer.

use boardgame_kit::{Game, GameRecord, RecordHeader};
use caravan_core::{Caravan, CaravanConfig};
use korovan_core::{Korovan, KorovanConfig};

/// Bytes ⇒ an engine, a player count and a sequence of action ids applied
/// through the checked API; the contract and the rules' invariants hold.
pub fn actions(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else { return };
    let result = if head & 1 == 0 {
        let config = KorovanConfig { players: 3 + (head >> 1) % 7, ..KorovanConfig::default() };
        boardgame_kit::conformance::check_action_bytes::<Korovan>(&config, rest, korovan_invariants)
    } else {
        let config = CaravanConfig { players: 2 + (head >> 1) % 3, max_turns: 60, ..CaravanConfig::default() };
        boardgame_kit::conformance::check_action_bytes::<Caravan>(&config, rest, caravan_invariants)
    };
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Bytes ⇒ text ⇒ a record of either engine ⇒ replay: errors, never panics.
pub fn records(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = RecordHeader::from_json(text);
    if let Ok(r) = GameRecord::<KorovanConfig>::from_json::<Korovan>(text) {
        let _ = r.replay::<Korovan>();
    }
    if let Ok(r) = GameRecord::<CaravanConfig>::from_json::<Caravan>(text) {
        let _ = r.replay::<Caravan>();
    }
}

/// Bytes ⇒ text ⇒ action notation and config JSON of both engines.
pub fn notation(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(a) = text.parse::<<Korovan as Game>::Action>() {
        assert_eq!(a.to_string().parse::<<Korovan as Game>::Action>().ok(), Some(a), "korovan notation round trip");
    }
    if let Ok(a) = text.parse::<<Caravan as Game>::Action>() {
        assert_eq!(a.to_string().parse::<<Caravan as Game>::Action>().ok(), Some(a), "caravan notation round trip");
    }
    if let Ok(c) = serde_json::from_str::<KorovanConfig>(text) {
        let _ = Korovan::new_game(&c);
    }
    if let Ok(c) = serde_json::from_str::<CaravanConfig>(text) {
        let _ = Caravan::new_game(&c);
    }
    let _ = serde_json::from_str::<Korovan>(text);
    let _ = serde_json::from_str::<Caravan>(text);
}

/// The rules' invariants of a Korovan state: cows are conserved (K-1.2) and
/// the state passes the setup validation (every invariant the builder checks)
/// and comes back unchanged from it.
pub fn korovan_invariants(s: &Korovan) -> Result<(), String> {
    let n = s.num_players() as u32;
    if s.total_cows() != n * (n + 1) {
        return Err(format!("K-1.2: {} cows in play, expected {}", s.total_cows(), n * (n + 1)));
    }
    match Korovan::from_setup(&s.to_setup()) {
        Ok(t) if &t == s => Ok(()),
        Ok(_) => Err("the setup round trip changes the state".into()),
        Err(e) => Err(format!("a reachable state fails the setup validation: {e}")),
    }
}

/// The rules' invariants of a Caravan state: 48 goods (C-1.3) and the setup
/// validation round trip.
pub fn caravan_invariants(s: &Caravan) -> Result<(), String> {
    let goods: u32 = s.goods_by_kind().iter().sum();
    if goods != 48 {
        return Err(format!("C-1.3: {goods} goods accounted for, expected 48"));
    }
    match Caravan::from_setup(&s.to_setup()) {
        Ok(t) if &t == s => Ok(()),
        Ok(_) => Err("the setup round trip changes the state".into()),
        Err(e) => Err(format!("a reachable state fails the setup validation: {e}")),
    }
}
