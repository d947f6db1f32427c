//! `boardgame play caravan` in a real terminal: tmux runs it on a screen of
//! 120 × 50, the test types coordinates (`s c4`, `c4 d4`) and keywords
//! (`end`, `help`), and checks at every prompt that the whole board (from
//! its title line to its last row), the moves and the prompt are on the
//! screen at once.
//!
//! Skipped (with a loud message) when `tmux` is not installed, unless
//! `BOARDGAME_TERMINAL_TEST=require`; `scripts/test-terminal.sh` installs
//! tmux (Debian's package) and runs this test that way.

use std::process::Command;
use std::time::{Duration, Instant};

const ROWS: usize = 50;

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible screen, line by line (trailing blank lines dropped).
    fn screen(&self) -> Vec<String> {
        let text = self.run(&["capture-pane", "-p", "-t", "play"]);
        let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
    }

    /// Waits until the screen's last line is the prompt (and `after` shows
    /// on the screen, if given), and returns the screen.
    fn prompt(&self, after: Option<&str>) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let s = self.screen();
            let ready =
                s.last().is_some_and(|l| l == "seat 0>") && after.is_none_or(|a| s.iter().any(|l| l.contains(a)));
            if ready {
                return s;
            }
            assert!(Instant::now() < deadline, "no prompt after {after:?}; the screen:\n{}", s.join("\n"));
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn send(&self, text: &str) {
        self.run(&["send-keys", "-t", "play", "-l", text]);
        self.run(&["send-keys", "-t", "play", "Enter"]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").output();
    }
}

/// The board, the moves and the prompt are all on one screen: the title
/// line and both edges of the board show, and the screen is at most 50
/// lines.
fn check_fits(screen: &[String]) {
    let text = screen.join("\n");
    assert!(screen.len() <= ROWS, "{} lines:\n{text}", screen.len());
    let title = screen.iter().rposition(|l| l.starts_with("Caravan: turn"));
    let title = title.unwrap_or_else(|| panic!("the board's title scrolled off:\n{text}"));
    let board = &screen[title..];
    assert!(board.iter().any(|l| l.starts_with(" 1 |")), "row 1 is not on the screen:\n{text}");
    assert!(board.iter().any(|l| l.starts_with(" 7 |")), "row 7 is not on the screen:\n{text}");
    assert!(board.iter().any(|l| l == "Your moves:"), "the moves are not on the screen:\n{text}");
    assert!(board.iter().any(|l| l.trim_start().starts_with("end ")), "`end` is not offered:\n{text}");
}

/// The first summary line whose typed example is two squares (`c4 d5`).
fn coordinates_move(screen: &[String]) -> Option<String> {
    let start = screen.iter().rposition(|l| l == "Your moves:")?;
    screen[start..].iter().find_map(|l| {
        let mut w = l.split_whitespace();
        let (a, b) = (w.next()?, w.next()?);
        let square = |s: &str| s.len() == 2 && s.as_bytes()[0].is_ascii_lowercase() && s.as_bytes()[1].is_ascii_digit();
        (square(a) && square(b)).then(|| format!("{a} {b}"))
    })
}

#[test]
fn caravan_by_coordinates_fits_a_50_line_screen() {
    let have = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !have {
        assert!(
            std::env::var("BOARDGAME_TERMINAL_TEST").as_deref() != Ok("require"),
            "tmux is required (BOARDGAME_TERMINAL_TEST=require); run scripts/test-terminal.sh"
        );
        eprintln!("SKIPPED: tmux is not installed (scripts/test-terminal.sh installs it)");
        return;
    }
    let tmux = Tmux { socket: format!("boardgame-test-{}", std::process::id()) };
    let bin = env!("CARGO_BIN_EXE_boardgame");
    let command = format!("{bin} play caravan -p 3 --seed 5 --lang en; sleep 60");
    tmux.run(&["new-session", "-d", "-s", "play", "-x", "120", "-y", &ROWS.to_string(), &command]);

    // Turn 0: one action, a camel from the supply.
    let s = tmux.prompt(None);
    check_fits(&s);
    tmux.send("s c4");
    // Turn 3: four actions. A camel from the supply onto another square,
    // then moves by coordinates while the summary offers them.
    let s = tmux.prompt(Some("seat 0 (you): Place a camel from the supply on c4"));
    check_fits(&s);
    tmux.send("s e3");
    let mut s = tmux.prompt(Some("seat 0 (you): Place a camel from the supply on e3"));
    check_fits(&s);
    let mut moved = 0;
    for _ in 0..2 {
        let Some(typed) = coordinates_move(&s) else { break };
        tmux.send(&typed);
        s = tmux.prompt(Some(&format!("seat 0 (you): Move the camel from {}", &typed[..2])));
        check_fits(&s);
        moved += 1;
        if !s.iter().any(|l| l.contains("of 4 actions left")) {
            break;
        }
    }
    assert!(moved > 0, "no move by coordinates was offered:\n{}", s.join("\n"));
    // A shorthand that fits nothing says so; `help` points to the rules.
    tmux.send("steal a1");
    let s = tmux.prompt(Some("No move fits `steal a1`"));
    assert!(s.len() <= ROWS);
    tmux.send("help");
    let s = tmux.prompt(Some("docs/rules/caravan.md"));
    assert!(s.len() <= ROWS);
    // The turn ends by keyword, and the next turn fits too.
    if s.iter().any(|l| l.contains("seat 0 to move")) {
        tmux.send("end");
        let s = tmux.prompt(Some("seat 0 (you): End the turn"));
        check_fits(&s);
    }
    tmux.send("quit");
}
