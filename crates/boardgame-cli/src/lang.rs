//! `--lang`, shared by `play` and `replay`: the same parser, and the same
//! default (the language of the environment).

use boardgame_kit::Lang;

/// `en` or `ru` (a locale such as `ru_RU.UTF-8` is read as its language).
pub(crate) fn parse_lang(text: &str) -> Result<Lang, String> {
    Lang::from_tag(text).ok_or_else(|| format!("the languages are `en` and `ru`, got `{text}`"))
}

/// The language of the environment (`LC_ALL`, `LC_MESSAGES`, `LANG`), else English.
pub(crate) fn env_lang() -> Lang {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.is_empty())
        .and_then(|v| Lang::from_tag(&v))
        .unwrap_or_default()
}
