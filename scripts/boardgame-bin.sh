# Sourced by scripts/test-python.sh and scripts/test-wheel.sh: the
# `boardgame` binary their tests compare with.
#
#   use_boardgame_bin TARGET WHY
#
# With BOARDGAME_BIN set (scripts/test.sh passes the one `cargo test`
# built), checks that it is an executable; else builds it with `cargo build
# -p boardgame-cli` into TARGET (made absolute) and points BOARDGAME_BIN at
# it. Exports BOARDGAME_BIN and BOARDGAMES_REQUIRE_BINARY=1 (the tests then
# fail, rather than skip, without it). WHY says what the tests do with it.
use_boardgame_bin() {
    local target=$1 why=$2
    if [ -z "${BOARDGAME_BIN:-}" ]; then
        echo "== cargo build -p boardgame-cli ($why)"
        cargo build --quiet -p boardgame-cli
        case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
        BOARDGAME_BIN="$target/debug/boardgame"
    else
        echo "== the boardgame binary: $BOARDGAME_BIN (BOARDGAME_BIN; $why)"
        [ -x "$BOARDGAME_BIN" ] || { echo "BOARDGAME_BIN=$BOARDGAME_BIN is not an executable" >&2; return 1; }
    fi
    export BOARDGAME_BIN
    export BOARDGAMES_REQUIRE_BINARY=1
}
