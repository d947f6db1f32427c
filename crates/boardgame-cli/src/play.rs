//! `boardgame play`: a person plays in the terminal against bots.
//!
//! The person sees only their own view (the engine's observation, rendered
//! by the engine) and the actions others play that they may see. The game
//! uses the kit driver's seed scheme (chance from stream
//! `CHANCE_STREAM`, seat `s` from `AGENT_STREAM_BASE + s`), so a record's
//! seed and agents say how the bots and the dice behaved.
//!
//! Everything a person reads is in words (the engines' `Words`, in English
//! or Russian, `--lang`), with the notation beside it on request
//! (`--notation`). Caravan also takes coordinates and keywords (`c4 d4`,
//! `s c4`, `pick 3`, `steal c4`, `end`) and shows a short summary of the
//! moves instead of their full list (`list` shows it), so the board and the
//! prompt fit a 50-line screen.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use boardgame_kit::{Agent, Driver, Game, GameRng, Lang, Turn, Viewer, Words, fill};
use clap::Args;

use crate::agents;
use crate::error::CliError;
use crate::games::{Engine, GameName, GameOpts, build_config, seats_of, with_game};

/// Arguments of `boardgame play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game.
    #[arg(value_parser = crate::games::game_parser())]
    game: GameName,
    #[command(flatten)]
    opts: GameOpts,
    /// Your seat, from 0.
    #[arg(long, default_value_t = 0)]
    seat: usize,
    /// The bots, in seat order (your seat skipped), comma-separated; the
    /// last one listed fills the seats left. Names: random, heuristic,
    /// ismcts:N, ismcts-h:N, flatmc:N, flatmc-h:N, learned, learned:T,
    /// learned-ismcts:N (N iterations per move, or a time like 200ms; T a
    /// temperature).
    /// By default the engine's heuristic (random for a game without one).
    #[arg(long, short = 'a')]
    agents: Option<String>,
    /// The language of the words: `en` or `ru` (by default the one of the
    /// environment's `LC_ALL`, `LC_MESSAGES` or `LANG`, else English).
    #[arg(long, value_parser = crate::lang::parse_lang)]
    lang: Option<Lang>,
    /// Show each action's notation beside its words (for experts).
    #[arg(long)]
    notation: bool,
    /// The game's seed (random when omitted; printed so you can replay it).
    #[arg(long, short = 's')]
    seed: Option<u64>,
    /// Show your view after every action of the others too (not only when
    /// it is your turn).
    #[arg(long)]
    watch: bool,
    /// Write the game record (JSON) here when the game ends or you quit.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// Runs `boardgame play` on stdin/stdout.
///
/// # Errors
/// Usage errors for bad arguments; runtime errors for I/O.
pub fn run(args: PlayArgs) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    with_game!(args.game, G => session::<G>(&args, &mut stdin.lock(), &mut stdout.lock()))
}

/// What the terminal says around the game, in one language.
struct Texts {
    intro: &'static str,
    strongest: &'static str,
    help: &'static str,
    rules: &'static str,
    your_moves: &'static str,
    list_hint: &'static str,
    no_action: &'static str,
    not_legal: &'static str,
    not_command: &'static str,
    not_move: &'static str,
    which: &'static str,
    no_fit: &'static str,
    you: &'static str,
    chance: &'static str,
    end_of_input: &'static str,
    seat: &'static str,
    left_game: &'static str,
    over: &'static str,
    scores: &'static str,
    winners: &'static str,
    you_win: &'static str,
    you_share: &'static str,
    you_lose: &'static str,
    record_written: &'static str,
}

const EN: Texts = Texts {
    intro: "{game} with {players} players, seed {seed}; you are seat {me}.",
    strongest: "The strongest bot at {players} players: {agent} (play against it with --agents {agent}).",
    help: "Type the number of an action, its words' shorthand or its notation. Commands: `list` shows every \
move numbered, `view` shows the game again, `rules` shows how to play, `help` shows this, `quit` (or end of input) \
stops the game. The full rules: docs/rules/{game}.md.",
    rules: "How to play (the full rules: docs/rules/{game}.md):",
    your_moves: "Your moves:",
    list_hint: "`list` shows the moves numbered ({n} in all); `help` for help and the rules.",
    no_action: "There is no action {n}: choose 1 to {max}.",
    not_legal: "Not legal now: {e}.",
    not_command: "Not a command or an action: {e}. Type `help` for help.",
    not_move: "`{text}` is not a command or a move. {how} `help` for help.",
    which: "Several moves fit; type the number of one:",
    no_fit: "No move fits `{text}` now; the moves are above (`list` shows them all).",
    you: "you",
    chance: "chance",
    end_of_input: "End of input: leaving the game.",
    seat: "seat {n}",
    left_game: "You left the game after {count}.",
    over: "The game is over.",
    scores: "Scores: {list}",
    winners: "Winner(s): seat {list}.",
    you_win: "You win!",
    you_share: "You share the win.",
    you_lose: "You lose.",
    record_written: "Record written to {path}.",
};

const RU: Texts = Texts {
    intro: "{game}: игроков {players}, зерно {seed}; вы — игрок {me}.",
    strongest: "Сильнейший бот при {players} игроках: {agent} (играть против него: --agents {agent}).",
    help: "Введите номер действия, его краткую запись или нотацию. Команды: `list` — все ходы с номерами, \
`view` — показать игру снова, `rules` — как играть, `help` — эта справка, `quit` (или конец ввода) — выйти. \
Полные правила: docs/rules/{game}.md.",
    rules: "Как играть (полные правила: docs/rules/{game}.md):",
    your_moves: "Ваши ходы:",
    list_hint: "`list` — все ходы ({n}) с номерами; `help` — справка и правила.",
    no_action: "Нет действия {n}: выберите от 1 до {max}.",
    not_legal: "Сейчас так нельзя: {e}.",
    not_command: "Это не команда и не действие: {e}. Введите `help` для справки.",
    not_move: "`{text}` — не команда и не ход. {how} `help` — справка.",
    which: "Подходят несколько ходов; введите номер одного:",
    no_fit: "Сейчас `{text}` не подходит ни к одному ходу; ходы — выше (`list` — все).",
    you: "вы",
    chance: "случай",
    end_of_input: "Конец ввода: выход из игры.",
    seat: "игрок {n}",
    left_game: "Вы вышли из игры после действий: {n}.",
    over: "Игра окончена.",
    scores: "Очки: {list}",
    winners: "Победитель: игрок {list}.",
    you_win: "Вы победили!",
    you_share: "Вы делите победу.",
    you_lose: "Вы проиграли.",
    record_written: "Запись игры: {path}.",
};

fn texts(lang: Lang) -> &'static Texts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

/// The width the list of actions is laid out in.
const LINE_WIDTH: usize = 100;

/// What `play` needs of an engine beyond the adapter: its screen and the
/// shorthand a person types.
pub(crate) trait PlayInput: Engine + Words {
    /// The person's screen: their view, as compact as the game allows.
    fn screen(&self, seat: usize) -> String {
        self.render_view(seat)
    }

    /// A few lines that sum up `legal` (and say how to type each kind of
    /// move), when the numbered list would be too long for the screen;
    /// `None` shows the numbered list.
    fn summary(&self, _legal: &[Self::Action], _lang: Lang) -> Option<Vec<String>> {
        None
    }

    /// What `text` is in the game's shorthand: the legal actions it names,
    /// a malformed shorthand (and what was expected), or no shorthand.
    fn shorthand(&self, _text: &str, _legal: &[Self::Action], _lang: Lang) -> Shorthand<Self::Action> {
        Shorthand::No
    }

    /// How a move may be typed, said when a line is neither a command nor
    /// an action; `None`: the notation's own message says it.
    fn typing(_lang: Lang) -> Option<&'static str> {
        None
    }
}

/// What a line is in a game's shorthand.
pub(crate) enum Shorthand<A> {
    /// No shorthand of the game.
    No,
    /// The legal actions it names (none: it names no legal move now).
    Fits(Vec<A>),
    /// A shorthand with a bad part: what was wrong and what was expected.
    Bad(String),
}

impl PlayInput for korovan_core::Korovan {}

enum Input<A> {
    Act(A),
    Quit,
}

fn viewer_of(seat: usize) -> Viewer {
    Viewer::Seat(seat)
}

fn session<G: PlayInput>(args: &PlayArgs, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    let config = build_config::<G>(args.opts.players, args.opts.config.as_deref())?;
    let seats = seats_of::<G>(&config);
    let me = args.seat;
    let lang = args.lang.unwrap_or_else(crate::lang::env_lang);
    let t = texts(lang);
    if me >= seats {
        return Err(CliError::Usage(format!("--seat must be below {seats} (seats 0..{seats}), got {me}")));
    }
    let default = if agents::build::<G>(boardgame_kit::AgentSpec::Heuristic).is_ok() { "heuristic" } else { "random" };
    let list = agents::parse_list(args.agents.as_deref().unwrap_or(default))?;
    let specs = agents::fit(&list, seats - 1, "the game has bots for")?;
    let mut bots: Vec<Option<Box<dyn Agent<G>>>> = Vec::with_capacity(seats);
    let mut names = Vec::with_capacity(seats);
    let mut spec_iter = specs.into_iter();
    for seat in 0..seats {
        if seat == me {
            bots.push(None);
            names.push("human".to_string());
        } else if let Some(spec) = spec_iter.next() {
            let mut agent = agents::build::<G>(spec)?;
            agent.reset();
            names.push(agent.name());
            bots.push(Some(agent));
        }
    }
    // Whatever happens in the game (the end, a quit, an error), the record
    // of what was played is written: the file is created before the game
    // starts (and before anything is shown), so a path that cannot be
    // written is refused at once, not after the game.
    let mut file = match &args.record {
        Some(path) => Some((
            path,
            std::fs::File::create(path).map_err(|e| {
                CliError::Runtime(format!(
                    "cannot write the record to {}: {e} (checked before the game starts)",
                    path.display()
                ))
            })?,
        )),
        None => None,
    };
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let mut driver = Driver::<G>::new(&config, seed).map_err(|e| CliError::Usage(e.to_string()))?;
    driver.set_agent_names(names.clone());

    let (sn, mn, pn) = (seed.to_string(), me.to_string(), seats.to_string());
    let intro = fill(t.intro, &[("game", G::CLI_NAME), ("players", &pn), ("seed", &sn), ("me", &mn)]);
    writeln!(out, "{intro}")?;
    for (s, n) in names.iter().enumerate() {
        if s != me {
            writeln!(out, "  {}: {n}", fill(t.seat, &[("n", &s.to_string())]))?;
        }
    }
    let best = GameName::from_cli_name(G::CLI_NAME)
        .and_then(|g| crate::lobby::strongest(g).into_iter().find(|&(n, _)| n == seats).map(|(_, a)| a));
    if let Some(agent) = best {
        writeln!(out, "{}", fill(t.strongest, &[("players", &pn), ("agent", &agent)]))?;
    }
    writeln!(out, "{}", fill(t.help, &[("game", G::CLI_NAME)]))?;
    let say = |state: &G, a: G::Action| -> String {
        let w = state.words(viewer_of(me), a, lang);
        match (args.notation, state.view_action(viewer_of(me), a)) {
            (true, Some(seen)) => format!("{w}  [{seen}]"),
            _ => w,
        }
    };

    let mut legal = G::ActionList::default();
    let bound = G::max_game_length(&config);
    let viewer = viewer_of(me);
    let mut game = || -> Result<bool, CliError> {
        loop {
            if driver.steps() > bound {
                return Err(CliError::Runtime(format!("the game did not end within its bound of {bound} actions")));
            }
            let before = driver.state().clone();
            match driver.turn() {
                Turn::Terminal => return Ok(false),
                Turn::Chance => {
                    let Some(a) = driver.step_chance() else {
                        return Err(CliError::Runtime("a chance node listed no outcome".into()));
                    };
                    if before.view_action(viewer, a).is_some() {
                        writeln!(out, "{}: {}", t.chance, say(&before, a))?;
                    }
                }
                Turn::Player(seat) if seat == me => {
                    driver.state().legal_actions(&mut legal);
                    match ask::<G>(driver.state(), me, &legal, lang, input, out)? {
                        Input::Act(a) => {
                            driver.apply(a).map_err(|e| CliError::Runtime(e.to_string()))?;
                            let who = fill(t.seat, &[("n", &mn)]);
                            writeln!(out, "{who} ({}): {}", t.you, say(&before, a))?;
                        }
                        Input::Quit => return Ok(true),
                    }
                }
                Turn::Player(seat) => {
                    let Some(Some(bot)) = bots.get_mut(seat) else {
                        return Err(CliError::Runtime(format!("no agent for seat {seat}")));
                    };
                    let a = driver.step_agent(&mut **bot).map_err(|e| CliError::Runtime(e.to_string()))?;
                    // what seat `me` learns of it, in words that hide what its
                    // view hides (K-8.1: a round's public end shows)
                    let who = fill(t.seat, &[("n", &seat.to_string())]);
                    writeln!(out, "{who} ({}): {}", bot.name(), say(&before, a))?;
                }
            }
            let mine = before.turn() == Turn::Player(me);
            if args.watch && !mine && !driver.state().is_terminal() {
                writeln!(out, "{}", driver.state().screen(me))?;
            }
        }
    };
    let result = game();
    let state = driver.state().clone();
    let record =
        driver.into_record().unwrap_or_else(|| boardgame_kit::GameRecord::new::<G>(config.clone(), Some(seed)));
    if let Some((path, file)) = &mut file {
        file.write_all((record.to_json() + "\n").as_bytes())
            .map_err(|e| CliError::Runtime(format!("cannot write the record to {}: {e}", path.display())))?;
    }
    let quit = result?;
    if quit {
        let n = record.actions.len();
        let count = format!("{n} action{}", if n == 1 { "" } else { "s" });
        writeln!(out, "{}", fill(t.left_game, &[("n", &n.to_string()), ("count", &count)]))?;
    } else {
        writeln!(out, "\n{}\n{}", t.over, state.screen(me))?;
        if let Some(outcome) = state.outcome() {
            let scores: Vec<String> =
                (0..seats).map(|s| format!("{}: {}", fill(t.seat, &[("n", &s.to_string())]), state.score(s))).collect();
            writeln!(out, "{}", fill(t.scores, &[("list", &scores.join(", "))]))?;
            let winners: Vec<String> = outcome.winners().iter().map(|s| s.to_string()).collect();
            let verdict = if outcome.is_winner(me) {
                if outcome.winners().len() > 1 { t.you_share } else { t.you_win }
            } else {
                t.you_lose
            };
            writeln!(out, "{} {verdict}", fill(t.winners, &[("list", &winners.join(", "))]))?;
        }
    }
    if let Some(path) = &args.record {
        writeln!(out, "{}", fill(t.record_written, &[("path", &path.display().to_string())]))?;
    }
    Ok(())
}

/// Shows the person's view and their moves (the numbered list, or the
/// game's summary when it has one), and reads until the person gives a
/// legal action or quits.
fn ask<G: PlayInput>(
    state: &G,
    me: usize,
    legal: &G::ActionList,
    lang: Lang,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Input<G::Action>, CliError> {
    let t = texts(lang);
    let viewer = Viewer::Seat(me);
    let numbered = |out: &mut dyn Write, list: &[G::Action]| -> std::io::Result<()> {
        let items: Vec<String> =
            list.iter().enumerate().map(|(i, &a)| format!("{:>3}) {}", i + 1, state.words(viewer, a, lang))).collect();
        let width = items.iter().map(|s| s.chars().count()).max().unwrap_or(0) + 2;
        let columns = (LINE_WIDTH / width).max(1);
        for line in items.chunks(columns) {
            let cells: Vec<String> =
                line.iter().map(|c| format!("{c}{}", " ".repeat(width.saturating_sub(c.chars().count())))).collect();
            writeln!(out, "  {}", cells.concat().trim_end())?;
        }
        Ok(())
    };
    let show = |out: &mut dyn Write| -> std::io::Result<()> {
        writeln!(out, "\n{}", state.screen(me))?;
        writeln!(out, "{}", t.your_moves)?;
        match state.summary(legal, lang) {
            Some(lines) => {
                for l in lines {
                    writeln!(out, "  {l}")?;
                }
                writeln!(out, "{}", fill(t.list_hint, &[("n", &legal.len().to_string())]))
            }
            None => numbered(out, legal),
        }
    };
    show(out)?;
    // The moves a number picks from: every legal one, or the few a
    // shorthand fitted.
    let mut choices: Vec<G::Action> = legal.to_vec();
    let mut line = String::new();
    loop {
        write!(out, "{}> ", fill(t.seat, &[("n", &me.to_string())]))?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out, "\n{}", t.end_of_input)?;
            return Ok(Input::Quit);
        }
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" | "q" => return Ok(Input::Quit),
            "help" | "?" => {
                writeln!(out, "{}", fill(t.help, &[("game", G::CLI_NAME)]))?;
                continue;
            }
            "rules" => {
                writeln!(out, "{}", fill(t.rules, &[("game", G::CLI_NAME)]))?;
                writeln!(out, "{}", G::how_to_play(lang).trim())?;
                continue;
            }
            "view" | "show" => {
                choices = legal.to_vec();
                show(out)?;
                continue;
            }
            "list" | "all" => {
                choices = legal.to_vec();
                numbered(out, legal)?;
                continue;
            }
            _ => {}
        }
        if let Ok(n) = text.parse::<i64>() {
            match usize::try_from(n).ok().and_then(|n| n.checked_sub(1)).and_then(|i| choices.get(i)) {
                Some(&a) => return Ok(Input::Act(a)),
                None => {
                    let (ns, max) = (n.to_string(), choices.len().to_string());
                    writeln!(out, "{}", fill(t.no_action, &[("n", &ns), ("max", &max)]))?;
                    continue;
                }
            }
        }
        let fits = match state.shorthand(text, legal, lang) {
            Shorthand::Bad(why) => {
                writeln!(out, "{why}")?;
                continue;
            }
            Shorthand::Fits(fits) => Some(fits),
            Shorthand::No => None,
        };
        match fits.as_deref() {
            Some([a]) => return Ok(Input::Act(*a)),
            Some(several) if several.len() > 1 => {
                writeln!(out, "{}", t.which)?;
                numbered(out, several)?;
                choices = several.to_vec();
                continue;
            }
            _ => {}
        }
        // the notation, which also says why an action is not legal now
        match text.parse::<G::Action>() {
            Ok(a) => match state.validate(a) {
                Ok(()) => return Ok(Input::Act(a)),
                Err(e) => writeln!(out, "{}", fill(t.not_legal, &[("e", &e.to_string())]))?,
            },
            Err(_) if fits.is_some() => writeln!(out, "{}", fill(t.no_fit, &[("text", text)]))?,
            Err(e) => match G::typing(lang) {
                Some(how) => writeln!(out, "{}", fill(t.not_move, &[("text", text), ("how", how)]))?,
                None => writeln!(out, "{}", fill(t.not_command, &[("e", &e.to_string())]))?,
            },
        }
    }
}

fn fresh_seed() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    // Mix so that consecutive calls give unrelated-looking seeds.
    GameRng::new(nanos ^ u64::from(std::process::id())).next_u64() >> 16
}

/// Caravan's summary of the moves: what kinds there are and where (each
/// line opens with a move of that kind as it is typed).
struct CaravanTexts {
    supply: &'static str,
    camels: &'static str,
    goods: &'static str,
    picks: &'static str,
    steals: &'static str,
    end: &'static str,
    typing: &'static str,
    no_square: &'static str,
    no_space: &'static str,
}

const CARAVAN_EN: CaravanTexts = CaravanTexts {
    supply: "place a camel from your supply ({n} squares; 2 actions onto an occupied one)",
    camels: "move an unladen camel from {list}",
    goods: "pass a good from {list}",
    picks: "pick up the good on space {list}",
    steals: "steal a good on {list}",
    end: "end the turn ({left} left)",
    typing: "Type a move as `c4 d4` (a camel or a good from c4 to d4), `s c4` (a camel from your supply), `c4` \
(what fits that square), `pick 3`, `steal c4` or `end`; or its number (`list` numbers them) or its notation.",
    no_square: "`{text}` is not a square: a square is a column a to g and a row 1 to 7, like `c4`.",
    no_space: "There is no numbered space `{text}`: the numbered spaces are 1 to {max}, like `pick 3`.",
};

const CARAVAN_RU: CaravanTexts = CaravanTexts {
    supply: "поставить верблюда из запаса (клеток: {n}; на занятую — 2 действия)",
    camels: "переместить ненагруженного верблюда с {list}",
    goods: "передать товар с {list}",
    picks: "погрузить товар с места {list}",
    steals: "украсть товар на {list}",
    end: "закончить ход (осталось действий: {left})",
    typing: "Ход вводится как `c4 d4` (верблюд или товар с c4 на d4), `s c4` (верблюд из запаса), `c4` \
(что подходит к этой клетке), `pick 3`, `steal c4` или `end`; или его номер (`list` нумерует ходы), или нотация.",
    no_square: "`{text}` — не клетка: клетка — это столбец от a до g и ряд от 1 до 7, например `c4`.",
    no_space: "Нет места с номером `{text}`: места пронумерованы от 1 до {max}, например `pick 3`.",
};

fn caravan_texts(lang: Lang) -> &'static CaravanTexts {
    match lang {
        Lang::En => &CARAVAN_EN,
        Lang::Ru => &CARAVAN_RU,
    }
}

impl PlayInput for caravan_core::Caravan {
    /// The engine's board without the rules between its rows: 23 lines
    /// instead of 29, so that the board, the moves and the prompt fit a
    /// 50-line screen.
    fn screen(&self, seat: usize) -> String {
        let full = self.render_view(seat);
        let lines: Vec<&str> = full.lines().collect();
        let rules: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].trim_start().starts_with("+-")).collect();
        let (first, last) = (rules.first().copied(), rules.last().copied());
        lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !rules.contains(i) || Some(*i) == first || Some(*i) == last)
            .map(|(_, l)| *l)
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn summary(&self, legal: &[caravan_core::Action], lang: Lang) -> Option<Vec<String>> {
        use caravan_core::Act;
        let t = caravan_texts(lang);
        // per kind of move: the first one as typed, and the places it starts from
        let mut kinds: [(Option<String>, Vec<String>, usize); 6] = Default::default();
        for a in legal {
            let (k, typed, place) = match a.act() {
                Act::Move { from: None, to } => (0, format!("s {to}"), String::new()),
                Act::Move { from: Some(f), to } => (1, format!("{f} {to}"), f.to_string()),
                Act::Good { kind, under, from, to } => {
                    (2, format!("{from} {to}"), format!("{from} ({kind}{})", if under { ", under" } else { "" }))
                }
                Act::Pick { space } => (3, format!("pick {space}"), space.to_string()),
                Act::Steal { square, .. } => (4, format!("steal {square}"), square.to_string()),
                Act::End => (5, "end".to_string(), String::new()),
                Act::Draw(_) => continue,
            };
            let entry = &mut kinds[k];
            entry.0.get_or_insert(typed);
            if !place.is_empty() && !entry.1.contains(&place) {
                entry.1.push(place);
            }
            entry.2 += 1;
        }
        let templates = [t.supply, t.camels, t.goods, t.picks, t.steals, t.end];
        let left = self.actions_left().to_string();
        let lines = kinds
            .iter()
            .zip(templates)
            .filter_map(|((typed, places, count), tmpl)| {
                let typed = typed.as_ref()?;
                let text = fill(tmpl, &[("n", &count.to_string()), ("list", &places.join(", ")), ("left", &left)]);
                Some(format!("{typed:<9} {text}"))
            })
            .collect();
        Some(lines)
    }

    /// `c4 d4` (a camel or a good from c4 to d4), `s c4` or `supply c4`
    /// (a camel from the supply), `c4` alone (whatever fits that square: a
    /// camel from the supply, a pick-up, a theft), `pick 3` or `p3`,
    /// `steal c4`, `end` or `e`. A word in a square's place that is no
    /// square (`z9`), or a pick-up's number that is no numbered space
    /// (`pick 9`), is told apart from a move that is not legal now.
    fn shorthand(&self, text: &str, legal: &[caravan_core::Action], lang: Lang) -> Shorthand<caravan_core::Action> {
        use caravan_core::{Act, SPACES, Square};
        let t = caravan_texts(lang);
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        // a word that means a square: a letter and a number, like `c4` or `z12`
        let square_like = |w: &str| {
            let mut c = w.chars();
            c.next().is_some_and(|l| l.is_ascii_alphabetic()) && !c.as_str().is_empty() && c.all(|d| d.is_ascii_digit())
        };
        let bad_square = |w: &str| Shorthand::Bad(fill(t.no_square, &[("text", w)]));
        let sq = |w: &str| w.parse::<Square>().map_err(|_| bad_square(w));
        let space_of = |s: Square| self.config().board.spaces.iter().position(|&i| i == s.index()).map(|i| i as u8 + 1);
        let keep = |f: &dyn Fn(Act) -> bool| Shorthand::Fits(legal.iter().copied().filter(|a| f(a.act())).collect());
        let pick = |n: &str| match n.parse::<u8>() {
            Ok(n) if (1..=SPACES as u8).contains(&n) => keep(&|a| a == Act::Pick { space: n }),
            _ => Shorthand::Bad(fill(t.no_space, &[("text", n), ("max", &SPACES.to_string())])),
        };
        // a result whose error is the shorthand's `Bad`
        let either =
            |r: Result<Shorthand<caravan_core::Action>, Shorthand<caravan_core::Action>>| r.unwrap_or_else(|bad| bad);
        match w.as_slice() {
            ["end"] | ["e"] => keep(&|a| a == Act::End),
            ["pick", n] | ["p", n] => pick(n),
            [p] if p.len() >= 2 && p.starts_with('p') && p[1..].bytes().all(|b| b.is_ascii_digit()) => pick(&p[1..]),
            ["s" | "supply", to] => either(sq(to).map(|to| keep(&|a| a == Act::Move { from: None, to }))),
            ["steal", at] => either(sq(at).map(|at| keep(&|a| matches!(a, Act::Steal { square, .. } if square == at)))),
            [from, to] if square_like(from) && square_like(to) => either(sq(from).and_then(|from| {
                let to = sq(to)?;
                Ok(keep(&|a| match a {
                    Act::Move { from: Some(f), to: t } => f == from && t == to,
                    Act::Good { from: f, to: t, .. } => f == from && t == to,
                    _ => false,
                }))
            })),
            [at] if square_like(at) => either(sq(at).map(|at| {
                let space = space_of(at);
                keep(&|a| match a {
                    Act::Move { from: None, to } => to == at,
                    Act::Pick { space: n } => Some(n) == space,
                    Act::Steal { square, .. } => square == at,
                    _ => false,
                })
            })),
            _ => Shorthand::No,
        }
    }

    fn typing(lang: Lang) -> Option<&'static str> {
        Some(caravan_texts(lang).typing)
    }
}
