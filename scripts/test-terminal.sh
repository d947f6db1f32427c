#!/usr/bin/env bash
# The terminal test of `boardgame play caravan`: tmux runs it on a 120 x 50
# screen, the test types coordinates and keywords and checks that the board,
# the moves and the prompt stay on one screen
# (crates/boardgame-cli/tests/terminal.rs).
#
#   scripts/test-terminal.sh            # install tmux, run the test
#   scripts/test-terminal.sh --install  # only install tmux
#
# Installs Debian's tmux when it is missing (apt-get update only then), and
# runs the test with BOARDGAME_TERMINAL_TEST=require, so a missing tmux
# fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v tmux >/dev/null 2>&1; then
    echo "installing tmux (Debian package)" >&2
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    if ! apt-cache show tmux >/dev/null 2>&1; then
        $sudo apt-get update -qq
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends tmux >/dev/null
fi
if [ "${1:-}" = "--install" ]; then
    exit 0
fi
BOARDGAME_TERMINAL_TEST=require cargo test -p boardgame-cli --test terminal -- --nocapture
