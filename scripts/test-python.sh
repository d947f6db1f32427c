#!/usr/bin/env bash
# The Python package's CI: builds the wheel of `python/` (the native module
# from crates/boardgame-py) into a virtual environment with the test extras
# (pytest, OpenSpiel, PettingZoo) and the `ray` extra, and runs the pytest
# suite, including the OpenSpiel and PettingZoo suites, the acceptance test
# against the `boardgame` binary, and the Ray test of
# `korovan_caravan.distributed` (a local Ray of 2 CPUs). Idempotent: the environment is created once and reused
# (cargo's cache makes the rebuild of an unchanged crate quick).
#
#   scripts/test-python.sh            # from anywhere in the repository
#
# Environment: PYTHON (default python3, >= 3.9), BOARDGAMES_VENV (default
# target/py-venv-ci), BOARDGAMES_PROFILE (the build of the native module,
# default `checked`: the release profile with this project's crates
# overflow-checked and debug-asserted, scripts/python-checked.toml, so the
# suite runs on optimised code with a debug build's checks, and the release
# wheel's build, scripts/test-wheel.sh, reuses every dependency; `release`
# for the published wheel's build, `dev` for an unoptimised one; see
# scripts/maturin-args.sh), BOARDGAMES_EXTRAS (default `test,ray`; `test`
# skips installing Ray, and the Ray test then skips itself), BOARDGAME_BIN
# (the `boardgame` binary the acceptance test compares with; default: built
# with `cargo build -p boardgame-cli`; scripts/test.sh passes the one
# `cargo test` built).
# Needs the Rust toolchain and access to PyPI.
# Exits non-zero when a step fails or when pytest collects no tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${BOARDGAMES_VENV:-target/py-venv-ci}
PROFILE=${BOARDGAMES_PROFILE:-checked}
EXTRAS=${BOARDGAMES_EXTRAS:-test,ray}
TARGET=${CARGO_TARGET_DIR:-target}

if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating the virtual environment $VENV"
    "$PYTHON" -m venv "$VENV"
fi

echo "== pip install ./python[$EXTRAS] (builds the wheel with maturin, build $PROFILE: $(scripts/maturin-args.sh "$PROFILE"))"
MATURIN_PEP517_ARGS=$(scripts/maturin-args.sh "$PROFILE") \
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "./python[$EXTRAS]"

. scripts/boardgame-bin.sh
use_boardgame_bin "$TARGET" "the acceptance test replays Python records with it"
case ",$EXTRAS," in *,ray,*) export BOARDGAMES_REQUIRE_RAY=1 ;; esac

echo "== pytest python/tests"
status=0
"$VENV/bin/python" -m pytest python/tests -q -p no:cacheprovider || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
