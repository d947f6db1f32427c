#!/usr/bin/env bash
# Every test of the project, on a fresh machine: the Rust workspace (unit,
# property, integration, example and doc tests, the web table's browser test
# among them), then the Python package's suite (OpenSpiel, PettingZoo; it
# makes its own virtual environment), built from source and as the
# release wheel installed without Rust. Installs what the suites need:
# Debian's Chromium and ChromeDriver (scripts/test-browser.sh --install),
# Debian's tmux (scripts/test-terminal.sh --install),
# Python packages from PyPI (scripts/test-python.sh, scripts/test-wheel.sh;
# scripts/first-hour.sh replays the first hour of a newcomer and of a
# researcher in the former's environment), and the
# ML stage's torch + sb3-contrib in a cache venv outside the clone (scripts/test-ml.sh).
# The suites of the source build (scripts/test-python.sh, the first hour, the
# ML stage) share one optimised build of the module with this project's
# crates overflow-checked (scripts/python-checked.toml), whose dependencies
# the release wheel's build reuses; the Python suites compare with the
# `boardgame` binary `cargo test` built.
# The README's test command; `.ci/run` runs it after fmt and clippy.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing the browser for the browser test"
scripts/test-browser.sh --install

echo "== installing tmux for the terminal test"
scripts/test-terminal.sh --install

echo "== cargo test --workspace --all-features (the browser and terminal tests required)"
BOARDGAME_BROWSER_TEST=require BOARDGAME_TERMINAL_TEST=require cargo test --workspace --all-features

# The `boardgame` binary cargo test has just built for the CLI's tests: the
# Python suites compare with it (a `cargo build -p boardgame-cli` would
# compile the whole server again, with other features).
TARGET=${CARGO_TARGET_DIR:-target}
case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET" ;; esac
export BOARDGAME_BIN="$TARGET/debug/boardgame"

echo "== the Python package (scripts/test-python.sh)"
scripts/test-python.sh

echo "== a newcomer's and a researcher's first hour, replayed (scripts/first-hour.sh; the README's Rust snippet ran above as a doctest)"
scripts/first-hour.sh --skip-doctest

# Before the wheel: its build replaces the checked build of the module's
# last crate (one cdylib file), which the ML stage would compile again.
echo "== the ML stage: SB3 and the training examples' quick mode (scripts/test-ml.sh)"
scripts/test-ml.sh

echo "== the prebuilt wheel, installed where there is no Rust (scripts/test-wheel.sh)"
scripts/test-wheel.sh
