//! The names deprecated in 0.2.0 still compile (with a warning, allowed
//! here) and mean what their new names mean.
#![allow(deprecated)]

use boardgame_kit::Game;
use korovan_core::{Action, Korovan, KorovanAction, KorovanConfig};

#[test]
fn korovan_action_is_action() {
    let old: KorovanAction = KorovanAction::Pay;
    let new: Action = old;
    assert_eq!(new, Action::Pay);
    assert!(matches!(new, KorovanAction::Pay), "the old name works in patterns");
    let config = KorovanConfig::default();
    assert_eq!(Korovan::action_from_id(&config, old.id()).unwrap(), Action::Pay);
    let parsed: KorovanAction = "pay".parse().unwrap();
    assert_eq!(parsed, new);
}
