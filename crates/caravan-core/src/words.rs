//! Caravan's actions in plain words ([`boardgame_kit::Words`]), in English
//! and Russian: one catalogue of phrases per language ([`EN`], [`RU`]; a
//! phrase missing from either does not compile), for the web table, the
//! terminal and the replay viewers. The notation (`good R2 b2=>d5`) stays
//! in records and the API.
//!
//! Positions are read one way everywhere a person reads them: squares by
//! their column letter and row number from 1 (`c4`, as the board's edges
//! show them), numbered spaces 1 to 8, seats by their number from 0.
//!
//! Caravan hides nothing (C-8.1): every viewer reads every action whole.
//! The words also say what an action sets off that everyone sees: a move
//! onto an occupied square costs 2 actions (C-5.1), the fourth pick-up
//! starts a refill (C-6.1) and each draw names the space it fills. The
//! Russian words follow the seed's vocabulary (верблюд, товар, город,
//! маркер спроса, маркер кражи, мешок, пополнение).

use boardgame_kit::{Lang, Viewer, Words, fill, marked_section};

use crate::action::{Act, Action};
use crate::board::{Kind, SPACES};
use crate::state::Caravan;

/// The phrases of one language. `{name}` marks a place the words fill.
#[derive(Debug)]
pub struct Phrases {
    /// A seat, by its number from 0.
    pub seat: &'static str,
    /// A chance draw: `{kind}`, `{space}`.
    pub draw: &'static str,
    /// End the turn.
    pub end: &'static str,
    /// Pick up: `{kind}`, `{space}`.
    pub pick: &'static str,
    /// The demand markers a pick-up takes: `{n}`, for one and for more.
    pub pick_markers: [&'static str; 2],
    /// The fourth pick-up since a refill starts one (C-6.1): `{marked}`
    /// (the spaces whose goods get a demand marker), `{drawn}` (the spaces
    /// that get a good from the bag).
    pub pick_refill: &'static str,
    /// No space, in a refill's list.
    pub none: &'static str,
    /// A camel from the supply: `{to}`.
    pub place: &'static str,
    /// A camel moves: `{from}`, `{to}`.
    pub move_camel: &'static str,
    /// The move lands on an occupied square.
    pub costs_two: &'static str,
    /// A good passed along a chain: `{good}`, `{from}`, `{to}`.
    pub pass: &'static str,
    /// A good delivered to its city: `{good}`, `{from}`, `{to}`.
    pub deliver: &'static str,
    /// A good on top of its camel: `{kind}`.
    pub good: &'static str,
    /// A stolen good, under its camel: `{kind}`.
    pub good_under: &'static str,
    /// A theft: `{kind}`, `{seat}`, `{square}`.
    pub steal: &'static str,
}

/// The normative rules (`docs/rules/caravan.md`), whose marked summary is
/// [`Words::how_to_play`].
pub const RULES: &str = include_str!("../RULES.md");

/// The English phrases.
pub const EN: Phrases = Phrases {
    seat: "seat {n}",
    draw: "Draw {kind} from the bag onto space {space}",
    end: "End the turn",
    pick: "Pick up the {kind} good on space {space}",
    pick_markers: [" with its demand marker", " with its {n} demand markers"],
    pick_refill: "; the fourth pick-up: a refill follows — a demand marker on the goods of spaces {marked}, goods from the bag onto spaces {drawn} (C-6.1)",
    none: "none",
    place: "Place a camel from the supply on {to}",
    move_camel: "Move the camel from {from} to {to}",
    costs_two: " (2 actions: the square is occupied)",
    pass: "Pass {good} from {from} to {to}",
    deliver: "Deliver {good} from {from} to its city {to}",
    good: "the {kind} good",
    good_under: "the stolen {kind} good (under the camel)",
    steal: "Steal the {kind} good from the camel of {seat} on {square} (a theft marker)",
};

/// The Russian phrases (the seed's words).
pub const RU: Phrases = Phrases {
    seat: "игрок {n}",
    draw: "Из мешка: товар {kind} на место {space}",
    end: "Закончить ход",
    pick: "Погрузить товар {kind} с места {space}",
    pick_markers: [" и забрать маркер спроса", " и забрать маркеры спроса ({n})"],
    pick_refill: "; четвёртый подобранный товар: пополнение — маркер спроса на товары мест {marked}, товары из мешка на места {drawn} (C-6.1)",
    none: "нет",
    place: "Поставить верблюда из запаса на {to}",
    move_camel: "Переместить верблюда с {from} на {to}",
    costs_two: " (2 действия: клетка занята)",
    pass: "Передать {good} по цепочке с {from} на {to}",
    deliver: "Доставить {good} с {from} в город {to}",
    good: "товар {kind}",
    good_under: "украденный товар {kind} (из-под верблюда)",
    steal: "Украсть товар {kind} с верблюда на {square} ({seat}; маркер кражи)",
};

/// The catalogue of `lang`.
pub fn phrases(lang: Lang) -> &'static Phrases {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

fn kind_text(k: Kind) -> String {
    k.to_string()
}

impl Words for Caravan {
    fn rules_text() -> &'static str {
        RULES
    }

    /// The marked summary of the rules file, in `lang`.
    fn how_to_play(lang: Lang) -> &'static str {
        marked_section(RULES, &format!("how-to-play:{}", lang.code()))
    }

    /// C-8.1: every viewer reads the whole action.
    fn words(&self, _viewer: Viewer, action: Action, lang: Lang) -> String {
        let p = phrases(lang);
        match action.act() {
            Act::Draw(kind) => {
                let space = (self.pending_draws().trailing_zeros() as usize % SPACES + 1).to_string();
                fill(p.draw, &[("kind", &kind_text(kind)), ("space", &space)])
            }
            Act::End => p.end.to_string(),
            Act::Pick { space } => {
                let kind = self.lying(space).map(kind_text).unwrap_or_default();
                let mut w = fill(p.pick, &[("kind", &kind), ("space", &space.to_string())]);
                let markers = self.space_markers(space);
                if markers > 0 {
                    w += &fill(p.pick_markers[usize::from(markers > 1)], &[("n", &markers.to_string())]);
                }
                if self.bag_len() > 0 && self.picks_since_refill() == 3 {
                    // C-6.1: the goods still lying get a marker, the empty
                    // spaces a good from the bag, in order, while it lasts
                    let (mut marked, mut drawn) = (Vec::new(), Vec::new());
                    for n in 1..=SPACES as u8 {
                        if n != space && self.lying(n).is_some() {
                            marked.push(n.to_string());
                        } else if drawn.len() < usize::from(self.bag_len()) {
                            drawn.push(n.to_string());
                        }
                    }
                    let list = |v: &[String]| if v.is_empty() { p.none.to_string() } else { v.join(", ") };
                    w += &fill(p.pick_refill, &[("marked", &list(&marked)), ("drawn", &list(&drawn))]);
                }
                w
            }
            Act::Move { from, to } => {
                let mut w = match from {
                    None => fill(p.place, &[("to", &to.to_string())]),
                    Some(f) => fill(p.move_camel, &[("from", &f.to_string()), ("to", &to.to_string())]),
                };
                if self.occupied() & (1u64 << to.index()) != 0 {
                    w += p.costs_two;
                }
                w
            }
            Act::Good { kind, under, from, to } => {
                let good = fill(if under { p.good_under } else { p.good }, &[("kind", &kind_text(kind))]);
                let city = self.config.board.cities[kind.index() as usize] == to.index();
                let args = [("good", good.as_str()), ("from", &from.to_string()), ("to", &to.to_string())];
                fill(if city { p.deliver } else { p.pass }, &args)
            }
            Act::Steal { kind, square, victim } => fill(
                p.steal,
                &[
                    ("kind", &kind_text(kind)),
                    ("seat", &fill(p.seat, &[("n", &victim.to_string())])),
                    ("square", &square.to_string()),
                ],
            ),
        }
    }
}
