#!/usr/bin/env bash
# The first hour of a newcomer and of a researcher, replayed:
#
#   1. the README's Rust snippets ("Embed an engine", "Play a game between
#      built-in agents"), doctests of the `boardgames` facade (src/lib.rs,
#      `ReadmeDoctests`): run with `cargo test --doc -p boardgames
#      ReadmeDoctests` (skipped with --skip-doctest: `cargo test --workspace`,
#      as scripts/test.sh runs it, has run them already);
#   2. `boardgame --help` exits 0 and lists every command the README names,
#      each command's own `--help` exits 0, and a short `simulate` runs;
#   3. the seven stumbles a newcomer met (issue 43), each shown gone:
#      1. every example under examples/ uses only the facade, and examples
#         copied as they are into a scratch crate that depends on the facade
#         by path (and on nothing else) build and run;
#      2. in that crate the facade's feature `proptest` is enough for the
#         `proptest!` macro (the copied proptest_invariants runs its tests);
#      3. the README's one call that plays a game between boxed agents
#         (`play_boxed`) builds and runs there too;
#      4. the README names the default of every script's environment;
#      5. `gymnasium.make`'s defaults are the documented ones (step 4 below);
#      6. bench_movegen's quick runs (`cargo test`) leave no criterion
#         baseline behind;
#      7. facts a script produces: embed_caravan prints its outcome as
#         embed_korovan does, every doc line listing the agents lists them
#         all (from the binary's own list), and docs/python.md's wheel size
#         is checked by scripts/test-wheel.sh against the wheel it builds;
#   4. scripts/first_hour.py in the package's test environment:
#      `gymnasium.make` for both games with `check_env` and its defaults,
#      `make_vec`, PettingZoo's API test on both of Caravan's action spaces
#      and on Korovan, and a policy evaluated against the built-in agents.
#
#   scripts/first-hour.sh [--skip-doctest]
#
# Checks behaviour (runs, exits 0, names every command), not exact text.
# Environment: BOARDGAMES_VENV (default target/py-venv-ci; made and filled
# as scripts/test-python.sh does when it lacks the package), BOARDGAME_BIN
# (default: built with `cargo build -p boardgame-cli`). The scratch crate
# builds in the same target directory (the dependencies are reused).
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

echo "== 3. the seven stumbles of a newcomer, each gone"
# 1. the examples name the facade alone
inner=$(grep -nE '\b(boardgame_kit|korovan_core|caravan_core)::|^use proptest::|extern crate' examples/*.rs examples/*/*.rs || true)
if [ -n "$inner" ]; then
    printf 'examples that use an inner crate, not the facade boardgames:\n%s\n' "$inner" >&2
    exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src/bin" "$scratch/examples"
cat > "$scratch/Cargo.toml" <<TOML
[package]
name = "first-hour"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
boardgames = { path = "$PWD", features = ["proptest"] }

[workspace]
TOML
cp Cargo.lock "$scratch/"  # the versions this workspace is tested with
cp examples/embed_caravan.rs "$scratch/src/main.rs"
cp examples/proptest_invariants.rs "$scratch/examples/"
# 3. the README's "Play a game between built-in agents", as a program
{
    echo "fn main() {"
    awk '/^### Play a game between built-in agents/{p=1} p&&/^```rust$/{c=1;next} c&&/^```$/{exit} c' README.md
    echo "}"
} > "$scratch/src/bin/play.rs"
grep -q play_boxed "$scratch/src/bin/play.rs" || { echo "the README shows no play_boxed snippet" >&2; exit 1; }
( cd "$scratch" && CARGO_TARGET_DIR="$TARGET" cargo build --quiet --bins --examples )
echo "ok  1. examples/embed_caravan.rs and examples/proptest_invariants.rs build as they are in a crate that depends on the facade alone"
( cd "$scratch" && CARGO_TARGET_DIR="$TARGET" cargo test --quiet --example proptest_invariants ) >/dev/null
echo "ok  2. the proptest! macro and the strategies with the facade's feature proptest and no other dependency"
played=$( cd "$scratch" && CARGO_TARGET_DIR="$TARGET" cargo run --quiet --bin play )
echo "ok  3. play_boxed from the README: $played"
# 4. every script's environment is named in the README
envs=$( { grep -hoE '^VENV=\$\{[A-Z_]+:-[^}]+\}' scripts/*.sh | sed 's/.*:-//; s/}$//'
          grep -hoE '^[A-Z]+="\$TARGET/py-venv-[a-z]+"' scripts/*.sh | sed 's/.*="\$TARGET/target/; s/"$//'; } | sort -u )
[ -n "$envs" ] || { echo "found no environment in scripts/*.sh" >&2; exit 1; }
for env in $envs; do
    grep -qF -- "\`$env\`" README.md || { echo "README does not name the environment $env (scripts/*.sh)" >&2; exit 1; }
done
echo "ok  4. the README names every environment: $(echo $envs)"
echo "ok  5. gymnasium.make's defaults: checked in step 4 (scripts/first_hour.py)"
# 6. a quick run of bench_movegen leaves nothing in criterion's directory
criterion_home=$(mktemp -d)
CRITERION_HOME="$criterion_home" cargo test --quiet -p boardgames --example bench_movegen >/dev/null
left=$(find "$criterion_home" -mindepth 1 | head -n 3)
rm -rf "$criterion_home"
[ -z "$left" ] || { printf 'cargo test --example bench_movegen left a baseline:\n%s\n' "$left" >&2; exit 1; }
echo "ok  6. bench_movegen's quick runs leave no baseline (its full runs keep their own, bench_movegen/*)"
# 7. facts: the outcome printed alike, every list of agents whole
outcome=$( cd "$scratch" && CARGO_TARGET_DIR="$TARGET" cargo run --quiet --bin first-hour | grep '^outcome: ' )
case "$outcome" in
    "outcome: Winner("*|"outcome: Draw("*) ;;
    *) echo "embed_caravan prints \"$outcome\", not the outcome as embed_korovan does" >&2; exit 1 ;;
esac
known=$("$BOARDGAME_BIN" simulate caravan --players 2 --games 1 --agents no-such-agent 2>&1 >/dev/null || true)
known=$(printf '%s\n' "$known" | grep -o 'known: [^(]*' | sed 's/known: //' | tr -d ' ' | tr ',' ' ')
[ -n "$known" ] || { echo "boardgame lists no agents in its error for an unknown one" >&2; exit 1; }
# A paragraph of a doc that lists the agents (it names `ismcts:N` and
# `flatmc-h:N`) names them all.
KNOWN="$known" python3 - README.md docs/*.md python/README.md crates/*/README.md src/README.md <<'PY'
import os, re, sys
known = os.environ["KNOWN"].split()
failed = False
for path in sys.argv[1:]:
    for para in re.split(r"\n\s*\n", open(path, encoding="utf-8").read()):
        if "`ismcts:N`" not in para or "`flatmc-h:N`" not in para:
            continue
        missing = [a for a in known if f"`{a}`" not in para]
        if missing:
            print(f"{path} lists the agents without {', '.join(missing)}:\n{para}", file=sys.stderr)
            failed = True
sys.exit(1 if failed else 0)
PY
for f in scripts/test-wheel.sh docs/python.md; do
    grep -q 'The release wheel is \*\*' "$f" || { echo "$f: docs/python.md's wheel size, checked by scripts/test-wheel.sh, is missing" >&2; exit 1; }
done
echo "ok  7. embed_caravan prints \"$outcome\"; every list of agents names $(echo $known); the wheel's size is checked by scripts/test-wheel.sh"

echo "== 4. the researcher's hour in Python ($VENV)"
if ! "$VENV/bin/python" -c "import korovan_caravan, gymnasium, pettingzoo" 2>/dev/null; then
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    MATURIN_PEP517_ARGS=$(scripts/maturin-args.sh "${BOARDGAMES_PROFILE:-checked}") \
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "./python[test]"
fi
"$VENV/bin/python" scripts/first_hour.py
echo "== the first hour took $(( $(date +%s) - start ))s"
