#!/usr/bin/env bash
# Headless Chromium for the dashboard's browser tests (tests/dashboard), from Debian's packages: Playwright
# drives it by path (CONQUEST_TEST_CHROMIUM, default /usr/bin/chromium), never `playwright install`.
#   .ci/chromium.sh          install it if missing, then print its path
set -euo pipefail

BROWSER="${CONQUEST_TEST_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$BROWSER" ]; then
    echo "Chromium not found at $BROWSER: installing it from Debian packages" >&2
    [ "$(id -u)" = 0 ] || { echo "installing Chromium needs root (apt-get); install the 'chromium' package" >&2; exit 1; }
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
fi
echo "$BROWSER"
