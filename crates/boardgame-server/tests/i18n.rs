//! The page's catalogues (assets/i18n.js): English and Russian have the same
//! keys, no phrase is empty, every key the scripts ask for (`t("key")`)
//! is in them, and so is every key they build from the games' names,
//! Korovan's phases, helpers, positions and marks.

use std::collections::BTreeSet;

use serde_json::Value;

fn asset(name: &str) -> String {
    std::fs::read_to_string(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn catalogues() -> serde_json::Map<String, Value> {
    let text = asset("i18n.js");
    let start = text.find("window.I18N = ").expect("the catalogue object") + "window.I18N = ".len();
    let end = text[start..].find("\n};").expect("its end") + start + 2;
    match serde_json::from_str::<Value>(&text[start..end]).expect("the catalogues are JSON") {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("a catalogue is an object").keys().cloned().collect()
}

#[test]
fn english_and_russian_have_every_key() {
    let cats = catalogues();
    assert_eq!(cats.keys().cloned().collect::<Vec<_>>(), ["en", "ru"]);
    let (en, ru) = (keys(&cats["en"]), keys(&cats["ru"]));
    let only_en: Vec<_> = en.difference(&ru).collect();
    let only_ru: Vec<_> = ru.difference(&en).collect();
    assert!(only_en.is_empty() && only_ru.is_empty(), "missing in ru: {only_en:?}; missing in en: {only_ru:?}");
    for (lang, cat) in &cats {
        for (k, v) in cat.as_object().unwrap() {
            assert!(v.as_str().is_some_and(|s| !s.trim().is_empty()), "{lang}: `{k}` is empty");
            // the same places to fill in both languages
            let places = |s: &str| -> BTreeSet<String> {
                s.split('{').skip(1).filter_map(|p| p.split_once('}').map(|(a, _)| a.to_string())).collect()
            };
            let other = if lang == "en" { &cats["ru"] } else { &cats["en"] };
            let (a, b) = (places(v.as_str().unwrap()), places(other[k].as_str().unwrap()));
            if !k.ends_with("config_ph") {
                assert_eq!(a, b, "`{k}`: the languages fill different places");
            }
        }
    }
}

#[test]
fn every_key_the_scripts_use_is_in_the_catalogue() {
    let en = keys(&catalogues()["en"]);
    let mut used = BTreeSet::new();
    for file in ["app.js", "caravan.js", "korovan.js"] {
        let text = asset(file);
        for (i, _) in text.match_indices("t(\"") {
            // a call of `t`, not of a name ending in t (`let(`, `split(`)
            let before = text[..i].chars().last().unwrap_or(' ');
            if before.is_alphanumeric() || before == '_' || before == '.' {
                continue;
            }
            let rest = &text[i + 3..];
            let key = &rest[..rest.find('"').unwrap()];
            if !key.ends_with('.') {
                used.insert(key.to_string());
            }
        }
    }
    assert!(used.len() > 50, "the scripts use the catalogue: {used:?}");
    // keys built from data
    for g in ["korovan", "caravan"] {
        used.insert(format!("game.{g}"));
    }
    for p in ["Deal", "Peek", "Lay", "Place", "Decide", "Defend", "Over"] {
        used.insert(format!("ko.phase.{p}"));
    }
    for h in ["scout", "spy", "flare", "second_thought", "guard", "haggle"] {
        used.insert(format!("ko.h.{h}"));
    }
    for p in 0..3 {
        used.insert(format!("ko.pos.{p}"));
    }
    used.extend(["ko.peeked".to_string(), "ko.scouted".to_string()]);
    // what a click on a card does (the action's first word)
    for d in ["peek", "place", "switch", "scout", "flare"] {
        used.insert(format!("ko.do.{d}"));
    }
    let missing: Vec<_> = used.difference(&en).collect();
    assert!(missing.is_empty(), "keys used but not in the catalogue: {missing:?}");
}
