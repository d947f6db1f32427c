#!/usr/bin/env bash
# The web table's browser test: headless Chromium driven through WebDriver
# plays a Caravan game and a Korovan game by clicking, and saves
# screenshots of the lobby, the loading table and each game at 1280 x 900
# and 390 x 844 (BOARDGAME_SCREENSHOTS=docs/img refreshes docs/img, whose
# pictures the README shows; else the temp folder).
#
#   scripts/test-browser.sh            # install the browser, run the test
#   scripts/test-browser.sh --install  # only install the browser
#
# Installs Debian's chromium and chromium-driver without their recommends
# (--no-install-recommends) when they are missing
# (apt-get update only then), and runs the test with
# BOARDGAME_BROWSER_TEST=require, so a missing driver fails instead of
# skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
    echo "installing chromium and chromium-driver (Debian packages)" >&2
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    if ! apt-cache show chromium-driver >/dev/null 2>&1; then
        $sudo apt-get update -qq
    fi
    # only what the browser needs: the recommends (117 packages, a systemd
    # upgrade among them) are not
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
if [ "${1:-}" = "--install" ]; then
    exit 0
fi
BOARDGAME_BROWSER_TEST=require cargo test -p boardgame-server --test browser -- --nocapture
# Refreshed screenshots are kept small (Debian's pngquant, when installed).
if [ -n "${BOARDGAME_SCREENSHOTS:-}" ] && command -v pngquant >/dev/null 2>&1; then
    for f in "$BOARDGAME_SCREENSHOTS"/*.png; do
        pngquant --force --skip-if-larger --quality 60-90 --output "$f" "$f" || true
    done
fi
