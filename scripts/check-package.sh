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

# cargo extracts the verification registry's crates under
# $CARGO_HOME/registry/src/-<hash of the registry's path>/ and never
# re-extracts a name and version it already holds there: a clone at the same
# path as an earlier run would verify against that run's sources (this
# happened: caravan-core was built against a boardgame-kit 0.1.0 from before
# `nn` existed). Our crates' stale copies go first; only those local-registry
# directories (a leading '-') and only this workspace's crate names.
CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
# And the builds of those copies: cargo takes a registry crate of the same
# name and version as unchanged, so a target directory that verified an
# older tree would link the old rlib (its fingerprint is dropped, which
# forces the rebuild; the workspace's own builds are kept).
for crate in $(awk '/^\[/ { pkg = ($0 == "[package]") } pkg && /^name = / { gsub(/"/, "", $3); print $3 }' crates/*/Cargo.toml Cargo.toml); do
    rm -rf "$CARGO_HOME"/registry/src/-*/"$crate"-[0-9]*
    for dep in "$TARGET"/debug/deps/"${crate//-/_}"-*.d; do
        [ -f "$dep" ] || continue
        if head -n 1 "$dep" | grep -q '/registry/src/-'; then
            hash=${dep##*-}
            rm -rf "$TARGET/debug/.fingerprint/$crate-${hash%.d}"
        fi
    done
done

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
