#!/usr/bin/env bash
# The maturin arguments (for MATURIN_PEP517_ARGS) of the Python module's
# build in a BOARDGAMES_PROFILE:
#
#   checked  the release profile with this project's crates overflow-checked
#            and debug-asserted (scripts/python-checked.toml): the Python
#            suites' default; the dependencies are shared with the release
#            wheel's build
#   release  the published wheel's build
#   dev      an unoptimised debug build
#   <other>  that cargo profile
#
#   MATURIN_PEP517_ARGS=$(scripts/maturin-args.sh checked) pip install ./python
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "${1:?usage: scripts/maturin-args.sh PROFILE}" in
    checked) printf -- '--profile release --config %q\n' "$ROOT/scripts/python-checked.toml" ;;
    *) printf -- '--profile %q\n' "$1" ;;
esac
