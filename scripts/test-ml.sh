#!/usr/bin/env bash
# The ML test stage: the single-learner environments under Stable-Baselines3
# / sb3-contrib (MaskablePPO smoke training, the SB3 VecEnv adapter) and the
# training examples of python/examples in their quick mode (a few thousand
# steps: the pipeline trains and evaluates; the full runs are in
# docs/learning.md).
#
# torch from PyPI brings ~3 GB of CUDA libraries, so the ML packages (torch,
# sb3-contrib, gymnasium, matplotlib, pytest) are installed ONCE per machine
# into a cache venv outside the clone, created idempotently under a lock;
# every run installs this checkout's wheel into it (by default the build
# scripts/test-python.sh makes, BOARDGAMES_PROFILE=checked: optimised, with
# this project's crates overflow-checked; cargo reuses it).
#
#   scripts/test-ml.sh                 # from anywhere in the repository
#
# Environment: PYTHON (default python3), KOROVAN_ML_VENV (default
# /var/cache/korovan-caravan/ml-venv), BOARDGAMES_PROFILE (default checked;
# release, dev or another cargo profile: scripts/maturin-args.sh).
# Needs the Rust toolchain and access to PyPI (the first time).
# Exits non-zero when a step fails or when pytest collects no tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${KOROVAN_ML_VENV:-/var/cache/korovan-caravan/ml-venv}
PROFILE=${BOARDGAMES_PROFILE:-checked}
PACKAGES=(torch "sb3-contrib>=2.3" "gymnasium>=1.1" matplotlib "pytest>=7")

mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if ! "$VENV/bin/python" -c "import torch, sb3_contrib, gymnasium, matplotlib, pytest" 2>/dev/null; then
    echo "== creating the ML cache venv $VENV (torch, sb3-contrib: once per machine)"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGES[@]}"
fi

echo "== the ML cache venv $VENV: $(du -sh "$VENV" 2>/dev/null | cut -f1)"
echo "== pip install ./python into $VENV (build $PROFILE: $(scripts/maturin-args.sh "$PROFILE"))"
MATURIN_PEP517_ARGS=$(scripts/maturin-args.sh "$PROFILE") \
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall ./python
flock -u 9

echo "== pytest python/tests_ml (SB3 smoke training, the examples' quick mode)"
status=0
"$VENV/bin/python" -m pytest python/tests_ml -q -p no:cacheprovider || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
