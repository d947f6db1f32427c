#!/usr/bin/env bash
# The declared minimum Rust (`rust-version` in Cargo.toml) is kept true:
# installs that toolchain (rustup, minimal profile; a no-op once installed)
# and checks every published crate with it, all features on. The Python
# binding (not published; built by maturin with a current toolchain) is
# left out. `.ci/run` runs it; needs rustup and the network the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
MSRV=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$MSRV" ] || { echo "no rust-version in Cargo.toml" >&2; exit 1; }
rustup toolchain install "$MSRV" --profile minimal
cargo "+$MSRV" check --locked --all-features \
    -p boardgames -p boardgame-kit -p korovan-core -p caravan-core \
    -p boardgame-sim -p boardgame-lab -p boardgame-server -p boardgame-cli
