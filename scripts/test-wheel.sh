#!/usr/bin/env bash
# The prebuilt wheel, as a user without Rust gets it: builds the abi3 wheel
# of `python/` once (maturin, the release profile; one wheel for every
# CPython >= 3.9), installs it into a fresh virtual environment with the
# test extras, then, on a PATH with no cargo and no rustc (checked), runs
# the README's Python snippet from outside the repository and the pytest
# suite (python/tests) against that install. Prints the wheel's size and
# build time.
#
#   scripts/test-wheel.sh             # from anywhere in the repository
#
# Environment: PYTHON (default python3, >= 3.9); CARGO_TARGET_DIR (the wheel
# goes to $CARGO_TARGET_DIR/wheels, the environments beside it);
# BOARDGAME_BIN (the `boardgame` binary the tests compare with; default:
# built with `cargo build -p boardgame-cli`; scripts/test.sh passes the one
# `cargo test` built).
# Needs the Rust toolchain (for the build only) and access to PyPI.
# scripts/test.sh runs it after scripts/test-python.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

PYTHON=${PYTHON:-python3}
TARGET=${CARGO_TARGET_DIR:-target}
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
TOOLS="$TARGET/py-venv-maturin"
WHEELS="$TARGET/wheels"
VENV="$TARGET/py-venv-wheel"

if [ ! -x "$TOOLS/bin/maturin" ]; then
    echo "== installing maturin into $TOOLS"
    "$PYTHON" -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.16,<2"
fi

# After scripts/test-python.sh (BOARDGAMES_PROFILE=checked) every
# dependency is compiled already: only this project's crates are built again.
echo "== maturin build --release (the abi3 wheel)"
rm -rf "$WHEELS"
started=$SECONDS
(cd python && "$TOOLS/bin/maturin" build --release --locked --out "$WHEELS")
built=$((SECONDS - started))
wheels=("$WHEELS"/korovan_caravan-*-abi3-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "expected one abi3 wheel in $WHEELS, found: $(ls "$WHEELS")" >&2
    exit 1
fi
wheel=${wheels[0]}
size_kib=$(( $(stat -c %s "$wheel") / 1024 ))
echo "wheel: $(basename "$wheel"), $size_kib KiB, built in ${built} s"
# The size docs/python.md states ("The release wheel is **N KiB**") is this
# build's, within 10%: a fact the build makes cannot go stale in the docs.
stated=$(grep -o 'The release wheel is \*\*[0-9,]* KiB\*\*' docs/python.md | grep -o '[0-9,]*' | tr -d , || true)
if [ -z "$stated" ]; then
    echo "docs/python.md states no size of the release wheel (\"The release wheel is **N KiB**\")" >&2
    exit 1
fi
if [ $(( size_kib * 10 )) -lt $(( stated * 9 )) ] || [ $(( size_kib * 10 )) -gt $(( stated * 11 )) ]; then
    echo "docs/python.md states a $stated KiB wheel, the build made $size_kib KiB: update the figure" >&2
    exit 1
fi
echo "ok  docs/python.md's $stated KiB is within 10% of the build's $size_kib KiB"

. scripts/boardgame-bin.sh
use_boardgame_bin "$TARGET" "the acceptance and Ray tests compare with it"

# From here on no Rust toolchain: a PATH of the environment and the system.
NO_RUST_PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin"
for tool in cargo rustc; do
    if PATH="$NO_RUST_PATH" command -v "$tool" >/dev/null; then
        echo "$tool is on the PATH meant to have no Rust: $NO_RUST_PATH" >&2
        exit 1
    fi
done

echo "== a fresh virtual environment $VENV, pip install the wheel (PATH without cargo/rustc)"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
PATH="$NO_RUST_PATH" CARGO=/nonexistent "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --only-binary korovan-caravan "$wheel[test]"

echo "== the README's Python snippet, from outside the repository"
snippet=$(mktemp -d)
trap 'rm -rf "$snippet"' EXIT
awk '/^## Python/{p=1} p&&/^```python$/{c=1;next} c&&/^```$/{exit} c' README.md > "$snippet/readme.py"
[ -s "$snippet/readme.py" ] || { echo "no Python snippet under the README's '## Python'" >&2; exit 1; }
cat >> "$snippet/readme.py" <<PY
import pathlib, sys
where = pathlib.Path(korovan_caravan.__file__).resolve()
assert pathlib.Path("$VENV").resolve() in where.parents, f"imported from {where}, not the wheel's install"
print("imported from", where.parent)
PY
(cd "$snippet" && PATH="$NO_RUST_PATH" "$VENV/bin/python" readme.py)

echo "== pytest python/tests against the wheel (no Ray in this environment: its test skips)"
status=0
PATH="$NO_RUST_PATH" "$VENV/bin/python" -m pytest python/tests -q -p no:cacheprovider || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
