#!/usr/bin/env bash
# The lobby's ladder: every agent the web table's lobby offers
# (boardgame_server::LOBBY_AGENTS), rated at every player count of each game
# (`boardgame ladder`), written as one JSON array to
# crates/boardgame-cli/ladder/lobby.json, from which `boardgame serve`
# labels the lobby's agents and `play` and `--help` name the strongest
# (docs/bots.md, "The lobby's labels").
#
#   scripts/lobby-ladder.sh            # about 25 minutes on 2 cores
#
# Environment: DEALS_KOROVAN (default 30), DEALS_CARAVAN (default 3),
# THREADS (default 2), BOARDGAME (default: the release binary, built).
set -euo pipefail
cd "$(dirname "$0")/.."
AGENTS=heuristic,random,learned,ismcts-h:300,learned-ismcts:300,ismcts:1000,flatmc:200
THREADS=${THREADS:-2}
if [ -z "${BOARDGAME:-}" ]; then
    cargo build --release -p boardgame-cli
    BOARDGAME=target/release/boardgame
fi
out=$(mktemp -d)
"$BOARDGAME" ladder korovan -a "$AGENTS" -p 3..9 -n "${DEALS_KOROVAN:-30}" -t "$THREADS" -q --json > "$out/korovan.json"
"$BOARDGAME" ladder caravan -a "$AGENTS" -p 2..4 -n "${DEALS_CARAVAN:-3}" -t "$THREADS" -q --json > "$out/caravan.json"
python3 - "$out/korovan.json" "$out/caravan.json" > crates/boardgame-cli/ladder/lobby.json <<'PY'
import json, sys
print(json.dumps([json.load(open(p)) for p in sys.argv[1:]], indent=1))
PY
rm -r "$out"
echo "wrote crates/boardgame-cli/ladder/lobby.json"
