#!/usr/bin/env bash
# Instructions per action of uniform random playouts from the initial state
# (chance included), for every engine and player count, counted by
# valgrind's callgrind: stable on a noisy machine, unlike wall time.
#
#   scripts/instructions.sh [GAMES]     (default 200 games per row)
#
# Each row runs examples/playouts.rs twice under callgrind — with 0 games
# (start-up and exit: the baseline) and with GAMES games — and divides the
# difference by the number of actions played.
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-200}"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "installing valgrind (Debian package)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; else
        sudo apt-get update -qq && sudo apt-get install -y -qq valgrind >/dev/null; fi
fi
cargo build --release --quiet --example playouts
bin=target/release/examples/playouts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # game players games -> "instructions actions"
    local out="$tmp/cg.out" actions
    actions=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$1" "$2" "$3" 0 2>/dev/null)
    local ir
    ir=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
    echo "$ir $actions"
}

printf '%-8s %7s %6s %10s %16s\n' engine players games actions "instr/action"
for row in "korovan 3" "korovan 4" "korovan 5" "korovan 6" "korovan 7" "korovan 8" "korovan 9" \
           "caravan 2" "caravan 3" "caravan 4"; do
    set -- $row
    read -r base _ < <(count "$1" "$2" 0)
    read -r total actions < <(count "$1" "$2" "$games")
    per=$(awk -v t="$total" -v b="$base" -v a="$actions" 'BEGIN { printf "%.1f", (t - b) / a }')
    printf '%-8s %7s %6s %10s %16s\n' "$1" "$2" "$games" "$actions" "$per"
done
