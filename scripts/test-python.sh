#!/usr/bin/env bash
# The Python package's CI: builds the wheel of `python/` (the native module
# from crates/boardgame-py) into a virtual environment with the test extras
# (pytest, OpenSpiel, PettingZoo) and runs the pytest suite, including the
# OpenSpiel and PettingZoo suites and the acceptance test against the
# `boardgame` binary. Idempotent: the environment is created once and reused
# (cargo's cache makes the rebuild of an unchanged crate quick).
#
#   scripts/test-python.sh            # from anywhere in the repository
#
# Environment: PYTHON (default python3, >= 3.9), BOARDGAMES_VENV (default
# target/py-venv-ci). Needs the Rust toolchain and access to PyPI.
# Exits non-zero when a step fails or when pytest collects no tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${BOARDGAMES_VENV:-target/py-venv-ci}

if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating the virtual environment $VENV"
    "$PYTHON" -m venv "$VENV"
fi

echo "== pip install ./python[test] (builds the wheel with maturin)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "./python[test]"

echo "== cargo build -p boardgame-cli (the acceptance test replays Python records with it)"
cargo build --quiet -p boardgame-cli
export BOARDGAME_BIN="$PWD/target/debug/boardgame"
export BOARDGAMES_REQUIRE_BINARY=1

echo "== pytest python/tests"
status=0
"$VENV/bin/python" -m pytest python/tests -q -p no:cacheprovider || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
