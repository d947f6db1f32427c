//! The fuzz targets' properties as proptests, so CI (on stable, with bounded
//! cases) catches regressions without the fuzzer. The bodies are the fuzz
//! crate's own (`fuzz/src/lib.rs`), included here unchanged.

#[path = "../fuzz/src/lib.rs"]
mod bodies;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Arbitrary bytes ⇒ engine, players, action ids through the checked API.
    #[test]
    fn arbitrary_action_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        bodies::actions(&bytes);
    }

    /// Mostly-legal walks reach deep into games (high bits select listed actions).
    #[test]
    fn deep_action_walks(head in any::<u8>(), words in proptest::collection::vec(any::<u16>(), 0..400)) {
        let mut bytes = vec![head];
        for w in words {
            let [a, b] = w.to_le_bytes();
            bytes.extend([a, b | 0x80]);
        }
        bodies::actions(&bytes);
    }

    /// Arbitrary text as records of either engine.
    #[test]
    fn arbitrary_record_text(text in ".{0,400}") {
        bodies::records(text.as_bytes());
    }

    /// Arbitrary text as action notation and configs.
    #[test]
    fn arbitrary_notation_text(text in ".{0,60}") {
        bodies::notation(text.as_bytes());
    }

    /// Notation-shaped text hits the parsers' inner branches.
    #[test]
    fn notation_shaped_text(text in "(move|pick|good|steal|end|draw|peek|lay|place|switch|reveal|scout|spy|flare|second|guard|haggle|pay|deal) ?[a-z0-9.+>=-]{0,8}( from P[0-9])?") {
        bodies::notation(text.as_bytes());
    }
}

/// Real records, damaged byte by byte, never panic the replay.
#[test]
fn damaged_real_records_never_panic() {
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden")).expect("golden dir") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("read");
        let golden: serde_json::Value = serde_json::from_str(&text).expect("golden JSON");
        let record = serde_json::to_string(&golden["record"]).expect("record JSON");
        bodies::records(record.as_bytes());
        let bytes = record.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            bodies::records(&bytes[..cut]);
            let mut damaged = bytes.to_vec();
            damaged[cut] = b'9';
            bodies::records(&damaged);
        }
    }
}
