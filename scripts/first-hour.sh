#!/usr/bin/env bash
# The first hour of a newcomer and of a researcher (issue 30), replayed:
#
#   1. the README's first Rust snippet ("Embed an engine"), which is a doctest
#      of the `boardgames` facade (src/lib.rs, `ReadmeDoctests`): run with
#      `cargo test --doc -p boardgames ReadmeDoctests` (skipped with
#      --skip-doctest: `cargo test --workspace`, as scripts/test.sh runs it,
#      has run it already);
#   2. `boardgame --help` exits 0 and lists every command the README names,
#      each command's own `--help` exits 0, and a short `simulate` runs;
#   3. scripts/first_hour.py in the package's test environment:
#      `gymnasium.make` for both games with `check_env`, `make_vec`,
#      PettingZoo's API test on both of Caravan's action spaces and on
#      Korovan, and a policy evaluated against the built-in agents.
#
#   scripts/first-hour.sh [--skip-doctest]
#
# Checks behaviour (runs, exits 0, names every command), not exact text.
# Environment: BOARDGAMES_VENV (default target/py-venv-ci; made and filled
# as scripts/test-python.sh does when it lacks the package), BOARDGAME_BIN
# (default: built with `cargo build -p boardgame-cli`). Under 2 minutes once
# built.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${BOARDGAMES_VENV:-target/py-venv-ci}
TARGET=${CARGO_TARGET_DIR:-target}
case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET" ;; esac
start=$(date +%s)

if [ "${1:-}" != "--skip-doctest" ]; then
    echo "== 1. the README's Rust snippets (doctests of the boardgames facade)"
    cargo test --quiet --doc -p boardgames ReadmeDoctests
else
    echo "== 1. the README's Rust snippets: run by cargo test --workspace (ReadmeDoctests)"
fi

echo "== 2. boardgame --help"
if [ -z "${BOARDGAME_BIN:-}" ]; then
    cargo build --quiet -p boardgame-cli
    BOARDGAME_BIN="$TARGET/debug/boardgame"
fi
help=$("$BOARDGAME_BIN" --help)
# the commands the binary lists (the "Commands:" block, but `help`)
commands=$(printf '%s\n' "$help" | awk '/^Commands:/{on=1; next} on && /^[^ ]/{on=0} on && NF {print $1}' | grep -v '^help$')
[ -n "$commands" ] || { echo "boardgame --help lists no commands" >&2; exit 1; }
for c in $commands; do
    "$BOARDGAME_BIN" "$c" --help >/dev/null || { echo "boardgame $c --help fails" >&2; exit 1; }
done
# every command the README's `boardgame --help` line names is listed
readme=$(grep -o 'boardgame --help *# every command: .*' README.md | sed 's/.*every command: //' | tr -d ' ' | tr ',' ' ' || true)
for c in $readme; do
    # a here-string, not a pipe: `grep -q` exits at its match, and under
    # pipefail the writer it leaves behind, killed by SIGPIPE, failed the check
    grep -qx -- "$c" <<<"$commands" || { echo "README names \`$c\`, boardgame --help does not" >&2; exit 1; }
done
echo "ok  commands: $(echo $commands)"
"$BOARDGAME_BIN" simulate caravan --players 2 --games 4 --agents heuristic,random >/dev/null
echo "ok  boardgame simulate caravan --players 2 --games 4 --agents heuristic,random"

echo "== 3. the researcher's hour in Python ($VENV)"
if ! "$VENV/bin/python" -c "import korovan_caravan, gymnasium, pettingzoo" 2>/dev/null; then
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    MATURIN_PEP517_ARGS=$(scripts/maturin-args.sh "${BOARDGAMES_PROFILE:-checked}") \
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "./python[test]"
fi
"$VENV/bin/python" scripts/first_hour.py
echo "== the first hour took $(( $(date +%s) - start ))s"
