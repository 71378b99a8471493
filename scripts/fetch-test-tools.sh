#!/usr/bin/env bash
# The real third-party programs the tests run, fetched when absent (each script is a no-op when its
# program is present): Debian's nginx and trixie's nats-server 2.10 into .tools/, Debian's Chromium.
# `npm test` runs this first (package.json "pretest"), so the README's test command works on a fresh
# machine; .ci/run runs `npm test` and so gets it too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-nginx.sh
bash scripts/fetch-nats-server.sh
bash scripts/fetch-chromium.sh
