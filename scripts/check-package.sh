#!/usr/bin/env bash
# Every crate but the Python binding packages for crates.io with no
# warning: `cargo package --workspace --exclude boardgame-py` builds each
# .crate, then verifies it by compiling it from the .crate alone, with the
# workspace's crates it depends on taken from the other .crate files (recent
# cargo, 1.95 here, resolves them through a local registry of those files:
# nothing needs to be on crates.io first, and nothing is fetched, --offline;
# so this is not `--no-verify`, which would hide what the build warns). Fails on any warning
# cargo prints, and when a .crate lacks its README or license texts.
# `.ci/run` runs it; about 2 minutes on 2 idle cores once the dependencies
# are compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --allow-dirty: the check runs before a commit too; what it packages is the
# working tree's content either way.
status=0
cargo package --workspace --exclude boardgame-py --locked --offline --allow-dirty 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "cargo package failed" >&2
    exit "$status"
fi
if grep -E '^(warning|error)' "$log" >&2; then
    echo "cargo package printed the warnings above" >&2
    exit 1
fi

missing=0
for crate in "$TARGET"/package/*-0*.crate; do
    files=$(tar -tzf "$crate")
    for want in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE; do
        if ! grep -qE "^[^/]+/(src/)?$want\$" <<<"$files"; then
            echo "$(basename "$crate") ships no $want" >&2
            missing=1
        fi
    done
done
[ "$missing" -eq 0 ] || exit 1
echo "packaged: $(cd "$TARGET/package" && ls ./*.crate | tr '\n' ' ')"
