//! [`Words`]: actions in plain words for people, in a [`Lang`]uage.
//!
//! Records, the API and the engines' notation (`peek 2.1`, `good R2
//! b2=>d5`) are for programs and experts; a person at a table reads words
//! ("Peek at row 2, middle card"). Every engine implements [`Words`] with
//! one catalogue of phrases per language, and every front end (the web
//! table, `boardgame play`, the replay viewers) asks it. The words hide
//! exactly what [`Game::view_action`] hides: [`check_words`] is the
//! property every engine tests over random games.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::{Game, GameRng, Turn, Viewer, chance_actions, random_action};

/// A language people read the game in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Russian (the language of the games' original descriptions).
    Ru,
}

impl Lang {
    /// Every language, in the order the page offers them.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ru];

    /// The language's code (`en`, `ru`).
    pub const fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    /// The language of a code or a browser's language tag (`ru`, `ru-RU`,
    /// `EN-gb`); `None` for a language without a catalogue.
    ///
    /// ```
    /// use boardgame_kit::Lang;
    /// assert_eq!(Lang::from_tag("ru-RU"), Some(Lang::Ru));
    /// assert_eq!(Lang::from_tag("en"), Some(Lang::En));
    /// assert_eq!(Lang::from_tag("de"), None);
    /// ```
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or("");
        Lang::ALL.into_iter().find(|l| l.code().eq_ignore_ascii_case(primary))
    }
}

/// An engine's actions in plain words.
pub trait Words: Game {
    /// `action`, about to be played in this state (ask before applying
    /// it), in plain words for `viewer`, in `lang`: a short sentence that
    /// starts with a capital and names positions the way the page and the
    /// terminal show them.
    ///
    /// The words hide exactly what [`Game::view_action`] hides: when the
    /// action is hidden from `viewer`, the words depend on the state alone
    /// (what kind of step is being taken, which is public), never on which
    /// action it is; when it is shown, two different actions have
    /// different words.
    fn words(&self, viewer: Viewer, action: Self::Action, lang: Lang) -> String;

    /// How to play, in a few lines of `lang` (Markdown: `**bold**` and a
    /// numbered list), citing rule ids (`K-5.5`). Engines draw it from
    /// their normative rules file with [`marked_section`], so that it cannot
    /// drift from the rules.
    fn how_to_play(lang: Lang) -> &'static str;

    /// The full normative rules (Markdown, rule ids at the start of their
    /// lines: `- K-5.5 …`), which [`Words::how_to_play`]'s ids refer to;
    /// empty for a game without a rules file.
    fn rules_text() -> &'static str {
        ""
    }
}

/// The part of `text` between the lines `<!-- name -->` and
/// `<!-- /name -->` (trimmed); empty when the markers are missing.
///
/// ```
/// let doc = "# Rules\n<!-- short:en -->\nPlay well.\n<!-- /short:en -->\n";
/// assert_eq!(boardgame_kit::marked_section(doc, "short:en"), "Play well.");
/// assert_eq!(boardgame_kit::marked_section(doc, "short:ru"), "");
/// ```
pub fn marked_section<'a>(text: &'a str, name: &str) -> &'a str {
    let open = format!("<!-- {name} -->");
    let close = format!("<!-- /{name} -->");
    let Some(start) = text.find(&open) else { return "" };
    let body = &text[start + open.len()..];
    match body.find(&close) {
        Some(end) => body[..end].trim(),
        None => "",
    }
}

/// Fills a catalogue phrase: every `{name}` of `template` is replaced by
/// the value given for `name` (names not given stay as they are).
///
/// ```
/// assert_eq!(boardgame_kit::fill("Move from {from} to {to}", &[("from", "c4"), ("to", "d4")]), "Move from c4 to d4");
/// ```
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match args.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        let _ = write!(out, "{{{name}}}");
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Checks in `state` that the words of every action it offers (its legal
/// actions, or its chance outcomes) hide exactly what
/// [`Game::view_action`] hides, for every seat and a spectator, in every
/// language: the actions hidden from a viewer all have one and the same
/// words; the shown ones have words of their own, pairwise different and
/// different from the hidden ones' words; no words are empty or contain a
/// `{` left unfilled.
///
/// # Errors
/// A message naming the viewer, the language and the actions when the
/// property fails.
pub fn check_words<G: Words>(state: &G) -> Result<(), String> {
    let mut actions = G::ActionList::default();
    match state.turn() {
        Turn::Terminal => return Ok(()),
        Turn::Chance => chance_actions(state, &mut actions),
        Turn::Player(_) => state.legal_actions(&mut actions),
    }
    let n = state.num_players();
    for lang in Lang::ALL {
        for v in 0..=n {
            let viewer = if v < n { Viewer::Seat(v) } else { Viewer::Spectator };
            let mut hidden: Option<(G::Action, String)> = None;
            let mut shown: Vec<(G::Action, String)> = Vec::new();
            for &a in actions.iter() {
                let w = state.words(viewer, a, lang);
                if w.trim().is_empty() || w.contains('{') {
                    return Err(format!("{viewer:?}, {lang:?}: the words of {a} are {w:?}"));
                }
                match state.view_action(viewer, a) {
                    None => match &hidden {
                        Some((b, wb)) if *wb != w => {
                            return Err(format!(
                                "{viewer:?}, {lang:?}: {a} and {b} are hidden, yet their words differ: {w:?} / {wb:?}"
                            ));
                        }
                        Some(_) => {}
                        None => hidden = Some((a, w)),
                    },
                    Some(_) => shown.push((a, w)),
                }
            }
            for (i, (a, w)) in shown.iter().enumerate() {
                if let Some((b, wb)) = &hidden
                    && wb == w
                {
                    return Err(format!("{viewer:?}, {lang:?}: shown {a} reads like hidden {b}: {w:?}"));
                }
                if let Some((b, _)) = shown[..i].iter().find(|(_, wb)| wb == w) {
                    return Err(format!("{viewer:?}, {lang:?}: {a} and {b} have the same words {w:?}"));
                }
            }
        }
    }
    Ok(())
}

/// Plays one random game of `config` from `seed` (chance by its weights)
/// and runs [`check_words`] on every state it passes through, up to
/// `max_steps` actions.
///
/// # Errors
/// The step and the message of the first failure; a bad `config`.
pub fn check_words_in_game<G: Words>(config: &G::Config, seed: u64, max_steps: usize) -> Result<(), String> {
    let mut state = G::new_game(config).map_err(|e| e.to_string())?;
    let mut rng = GameRng::new(seed);
    for step in 0..max_steps {
        check_words(&state).map_err(|e| format!("seed {seed}, step {step}: {e}"))?;
        let Some(a) = random_action(&state, &mut rng) else { break };
        state.apply(a).map_err(|e| format!("seed {seed}, step {step}: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_named_places_only() {
        assert_eq!(fill("{a} and {b}", &[("a", "x"), ("b", "y")]), "x and y");
        assert_eq!(fill("{a} and {c}", &[("a", "x")]), "x and {c}");
        assert_eq!(fill("open { brace", &[]), "open { brace");
        assert_eq!(fill("", &[("a", "x")]), "");
    }

    #[test]
    fn tags_name_languages() {
        assert_eq!(Lang::from_tag("ru"), Some(Lang::Ru));
        assert_eq!(Lang::from_tag("ru_RU"), Some(Lang::Ru));
        assert_eq!(Lang::from_tag(" En-US "), Some(Lang::En));
        assert_eq!(Lang::from_tag(""), None);
        assert_eq!(Lang::from_tag("fr"), None);
        for l in Lang::ALL {
            assert_eq!(Lang::from_tag(l.code()), Some(l));
        }
    }
}
