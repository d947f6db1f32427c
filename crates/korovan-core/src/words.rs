//! Korovan's actions in plain words ([`boardgame_kit::Words`]), in English
//! and Russian: one catalogue of phrases per language ([`EN`], [`RU`]; a
//! phrase missing from either does not compile), for the web table, the
//! terminal and the replay viewers. The notation (`peek 2.1`) stays in
//! records and the API.
//!
//! Positions are read one way everywhere a person reads them: rows by
//! their number from 1 in laying order (K-4.1), the three cards of a row as
//! left, middle and right (positions 0, 1, 2 of the notation); seats by
//! their number from 0, as the table shows them.
//!
//! What the words hide is what `view_action` hides (K-8): a deal is named
//! to the driver alone (K-3.1), a lay to the competitor who lays alone
//! (K-4.3); everyone else reads that a helper was drawn, or that a row was
//! laid face down. The Russian words follow the seed's vocabulary
//! (корованщик, конкурент, засада, «Пусто», коровы, жетон).

use boardgame_kit::{Lang, Viewer, Words, fill, marked_section};

use crate::action::{Action, AmbushSet};
use crate::config::Helper;
use crate::state::Korovan;

/// The phrases of one language. `{name}` marks a place the words fill.
#[derive(Debug)]
pub struct Phrases {
    /// The language (it picks the plural forms).
    pub lang: Lang,
    /// The left, middle and right card of a row, as "row 2, middle card".
    pub cell: [&'static str; 3],
    /// The left, middle and right position, as in "an ambush on the left".
    pub side: [&'static str; 3],
    /// "and" joining two sides.
    pub and: &'static str,
    /// A seat, by its number from 0.
    pub seat: &'static str,
    /// The six helper kinds, in [`Helper::ALL`] order.
    pub helpers: [&'static str; 6],
    /// A deal the viewer does not see.
    pub deal_hidden: &'static str,
    /// A deal the driver sees: `{helper}`.
    pub deal: &'static str,
    /// A peek: `{cell}`.
    pub peek: &'static str,
    /// A lay the viewer does not see.
    pub lay_hidden: &'static str,
    /// A lay with one ambush: `{side}`, `{fine}`.
    pub lay_one: &'static str,
    /// A lay with two ambushes: `{sides}`, `{fine}`.
    pub lay_two: &'static str,
    /// Place the token: `{cell}`.
    pub place: &'static str,
    /// Switch the token: `{cell}`.
    pub switch: &'static str,
    /// Reveal the card under the token: `{cell}`.
    pub reveal: &'static str,
    /// Play a Scout: `{helper}`, `{cell}`.
    pub scout: &'static str,
    /// Play a Spy: `{helper}`, `{row}`, `{seat}`.
    pub spy: &'static str,
    /// Play a Flare: `{helper}`, `{cell}`.
    pub flare: &'static str,
    /// Play a Second thought: `{helper}`.
    pub second_thought: &'static str,
    /// Play a Guard: `{helper}`.
    pub guard: &'static str,
    /// Play a Haggle: `{helper}`, `{cows}` (what is paid then).
    pub haggle: &'static str,
    /// Pay a fine: `{cows}`, `{seat}`.
    pub pay: &'static str,
    /// A number of cows: one, few (Russian 2–4, 22–24 …), many.
    pub cows: [&'static str; 3],
    /// The journey ends: the driver has no cows left (K-5.6).
    pub broke: &'static str,
    /// The toll (K-5.7): `{seats}` paid 1 cow each to the driver.
    pub toll: &'static str,
    /// The round is over: `{round}`, `{cows}` (every seat's cows now).
    pub round_over: &'static str,
    /// A skipped round (K-5.8): `{seat}` has no cows.
    pub skipped: &'static str,
    /// The game is over (K-7.2).
    pub game_over: &'static str,
}

/// The normative rules (`docs/rules/korovan.md`), whose marked summary is
/// [`Words::how_to_play`].
pub const RULES: &str = include_str!("../RULES.md");

/// The English phrases.
pub const EN: Phrases = Phrases {
    lang: Lang::En,
    cell: ["row {row}, left card", "row {row}, middle card", "row {row}, right card"],
    side: ["on the left", "in the middle", "on the right"],
    and: "and",
    seat: "seat {n}",
    helpers: ["Scout", "Spy", "Flare", "Second thought", "Guard", "Haggle"],
    deal_hidden: "The driver draws a helper card",
    deal: "Draw a helper card: {helper}",
    peek: "Peek at {cell}",
    lay_hidden: "Lay a row face down",
    lay_one: "Lay the row with one ambush, {side} (keep an Ambush: fine {fine})",
    lay_two: "Lay the row with two ambushes, {sides} (keep an Empty: fine {fine})",
    place: "Put the caravan on {cell}",
    switch: "Change your mind: move the caravan to {cell}",
    reveal: "Turn over {cell}",
    scout: "Play {helper}: look at {cell}",
    spy: "Play {helper}: look at the hand card of row {row} ({seat})",
    flare: "Play {helper}: turn {cell} face up for everyone",
    second_thought: "Play {helper}: one more change of mind",
    guard: "Play {helper}: this ambush costs nothing",
    haggle: "Play {helper}: pay {cows} instead",
    pay: "Pay {cows} to {seat}",
    cows: ["{n} cow", "{n} cows", "{n} cows"],
    broke: "the driver has no cows left: the journey ends (K-5.6)",
    toll: "the driver crossed every row: {seats} pay 1 cow each as toll (K-5.7)",
    round_over: "round {round} is over; cows now: {cows}",
    skipped: "{seat} has no cows: that round is skipped (K-5.8)",
    game_over: "the game is over (K-7.2)",
};

/// The Russian phrases (the seed's words).
pub const RU: Phrases = Phrases {
    lang: Lang::Ru,
    cell: ["ряд {row}, левая карта", "ряд {row}, средняя карта", "ряд {row}, правая карта"],
    side: ["слева", "в середине", "справа"],
    and: "и",
    seat: "игрок {n}",
    helpers: ["Разведчик", "Шпион", "Сигнальная ракета", "Второй шанс", "Охрана", "Торг"],
    deal_hidden: "Корованщик берёт карту помощника",
    deal: "Взять карту помощника: {helper}",
    peek: "Подсмотреть карту: {cell}",
    lay_hidden: "Выложить ряд рубашкой вверх",
    lay_one: "Выложить ряд с одной засадой {side} (на руке «Засада»: штраф {fine})",
    lay_two: "Выложить ряд с двумя засадами {sides} (на руке «Пусто»: штраф {fine})",
    place: "Поставить корован: {cell}",
    switch: "Передумать: переставить корован — {cell}",
    reveal: "Вскрыть карту: {cell}",
    scout: "Сыграть карту «{helper}»: посмотреть карту — {cell}",
    spy: "Сыграть карту «{helper}»: посмотреть карту на руке хозяина ряда {row} ({seat})",
    flare: "Сыграть карту «{helper}»: открыть для всех карту — {cell}",
    second_thought: "Сыграть карту «{helper}»: передумать ещё раз",
    guard: "Сыграть карту «{helper}»: эта засада ничего не стоит",
    haggle: "Сыграть карту «{helper}»: заплатить {cows}",
    pay: "Отдать {cows}: {seat}",
    cows: ["{n} корову", "{n} коровы", "{n} коров"],
    broke: "у корованщика не осталось коров: путешествие окончено (K-5.6)",
    toll: "корованщик прошёл все ряды: {seats} отдают ему по корове (K-5.7)",
    round_over: "раунд {round} окончен; коровы: {cows}",
    skipped: "{seat}: нет коров, раунд пропускается (K-5.8)",
    game_over: "игра окончена (K-7.2)",
};

/// The catalogue of `lang`.
pub fn phrases(lang: Lang) -> &'static Phrases {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

impl Phrases {
    /// `n` cows, in the plural form the language asks for.
    pub fn cows_text(&self, n: u32) -> String {
        let form = if self.lang == Lang::Ru {
            match (n % 10, n % 100) {
                (1, r) if r != 11 => 0,
                (2..=4, r) if !(12..=14).contains(&r) => 1,
                _ => 2,
            }
        } else if n == 1 {
            0
        } else {
            2
        };
        fill(self.cows[form], &[("n", &n.to_string())])
    }

    /// A seat, by its number.
    pub fn seat_text(&self, seat: usize) -> String {
        fill(self.seat, &[("n", &seat.to_string())])
    }

    fn cell_text(&self, row: u8, pos: u8) -> String {
        fill(self.cell[usize::from(pos.min(2))], &[("row", &row.to_string())])
    }

    fn helper_text(&self, h: Helper) -> &'static str {
        self.helpers[h.index()]
    }
}

fn sides(p: &Phrases, set: AmbushSet) -> String {
    let names: Vec<&str> = (0..3u8).filter(|&i| set.contains(i)).map(|i| p.side[usize::from(i)]).collect();
    names.join(&format!(" {} ", p.and))
}

impl Words for Korovan {
    fn rules_text() -> &'static str {
        RULES
    }

    /// The marked summary of the rules file, in `lang`.
    fn how_to_play(lang: Lang) -> &'static str {
        marked_section(RULES, &format!("how-to-play:{}", lang.code()))
    }

    fn words(&self, viewer: Viewer, action: Action, lang: Lang) -> String {
        let p = phrases(lang);
        let Some(action) = self.sees_action(viewer.seat(), action).then_some(action) else {
            // Hidden (K-8): only the kind of step shows, which the phase makes public.
            return match action {
                Action::Deal(_) => p.deal_hidden.to_string(),
                _ => p.lay_hidden.to_string(),
            };
        };
        let said = self.action_words(p, action);
        match self.aftermath(p, action) {
            Some(after) => format!("{said}; {after}"),
            None => said,
        }
    }
}

impl Korovan {
    /// What a shown action does, in words.
    fn action_words(&self, p: &Phrases, action: Action) -> String {
        let row = self.current_row().unwrap_or(1);
        let helper = |h: Helper| p.helper_text(h);
        match action {
            Action::Deal(h) => fill(p.deal, &[("helper", helper(h))]),
            Action::Peek { row, pos } => fill(p.peek, &[("cell", &p.cell_text(row, pos))]),
            Action::Lay(set) if set.count() == 1 => {
                let fine = self.config.fines.one_ambush.to_string();
                fill(p.lay_one, &[("side", &sides(p, set)), ("fine", &fine)])
            }
            Action::Lay(set) => {
                let fine = self.config.fines.two_ambushes.to_string();
                fill(p.lay_two, &[("sides", &sides(p, set)), ("fine", &fine)])
            }
            Action::Place(pos) => fill(p.place, &[("cell", &p.cell_text(row, pos))]),
            Action::Switch(pos) => fill(p.switch, &[("cell", &p.cell_text(row, pos))]),
            Action::Reveal => fill(p.reveal, &[("cell", &p.cell_text(row, self.token().unwrap_or(0)))]),
            Action::Scout { row, pos } => {
                fill(p.scout, &[("helper", helper(Helper::Scout)), ("cell", &p.cell_text(row, pos))])
            }
            Action::Spy { row } => {
                let owner = self.row_owner(row).map(|s| p.seat_text(s)).unwrap_or_default();
                fill(p.spy, &[("helper", helper(Helper::Spy)), ("row", &row.to_string()), ("seat", &owner)])
            }
            Action::Flare { row, pos } => {
                fill(p.flare, &[("helper", helper(Helper::Flare)), ("cell", &p.cell_text(row, pos))])
            }
            Action::SecondThought => fill(p.second_thought, &[("helper", helper(Helper::SecondThought))]),
            Action::Guard => fill(p.guard, &[("helper", helper(Helper::Guard))]),
            Action::Haggle => {
                let cows = self.due().saturating_sub(1);
                fill(p.haggle, &[("helper", helper(Helper::Haggle)), ("cows", &p.cows_text(cows))])
            }
            Action::Pay => {
                let owner = self.current_row().and_then(|r| self.row_owner(r)).map(|s| p.seat_text(s));
                fill(p.pay, &[("cows", &p.cows_text(self.due())), ("seat", &owner.unwrap_or_default())])
            }
        }
    }
}

impl Korovan {
    /// What an action sets off that everyone sees (cows are public,
    /// K-8.1): the end of the journey for want of cows (K-5.6), the toll
    /// (K-5.7), the end of the round with every seat's cows, skipped rounds
    /// (K-5.8) and the end of the game. `None` when the round goes on.
    fn aftermath(&self, p: &Phrases, action: Action) -> Option<String> {
        let mut next = *self;
        if boardgame_kit::Game::apply(&mut next, action).is_err() || next.round() == self.round() {
            return None;
        }
        let n = usize::from(self.n);
        let driver = self.driver()?;
        let mut parts = Vec::new();
        if next.cows(driver) == 0 {
            parts.push(p.broke.to_string());
        }
        // the fine this action pays, to the owner of the current row
        let fine = match action {
            Action::Pay => self.due(),
            Action::Haggle => self.due().saturating_sub(1),
            _ => 0,
        };
        let owner = self.current_row().and_then(|r| self.row_owner(r));
        let payers: Vec<String> = (0..n)
            .filter(|&s| s != driver)
            .filter(|&s| {
                let got = if Some(s) == owner { fine } else { 0 };
                i64::from(next.cows(s)) - i64::from(self.cows(s)) - i64::from(got) == -1
            })
            .map(|s| p.seat_text(s))
            .collect();
        if !payers.is_empty() {
            parts.push(fill(p.toll, &[("seats", &payers.join(", "))]));
        }
        let cows: Vec<String> = (0..n).map(|s| format!("{} {}", p.seat_text(s), next.cows(s))).collect();
        let round = (self.round() + 1).to_string();
        parts.push(fill(p.round_over, &[("round", &round), ("cows", &cows.join(", "))]));
        // K-5.8: every round between this one and the next driver's was skipped
        let skipped = next.round().saturating_sub(self.round() + 1);
        for k in 1..=skipped as usize {
            parts.push(fill(p.skipped, &[("seat", &p.seat_text((driver + n * k - k) % n))]));
        }
        if next.phase() == crate::state::Phase::Over {
            parts.push(p.game_over.to_string());
        }
        Some(parts.join("; "))
    }

    /// What paying the pending fine costs the driver now: the fine, at most
    /// the driver's cows (K-5.5).
    fn due(&self) -> u32 {
        let cows = self.driver().map_or(0, |d| self.cows(d));
        u32::from(self.pending_fine().min(cows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn russian_cows_take_their_plural_forms() {
        let forms: Vec<String> = [1, 2, 4, 5, 11, 12, 21, 22, 25].iter().map(|&n| RU.cows_text(n)).collect();
        assert_eq!(
            forms,
            [
                "1 корову",
                "2 коровы",
                "4 коровы",
                "5 коров",
                "11 коров",
                "12 коров",
                "21 корову",
                "22 коровы",
                "25 коров"
            ]
        );
        assert_eq!(EN.cows_text(1), "1 cow");
        assert_eq!(EN.cows_text(3), "3 cows");
    }
}
