#!/usr/bin/env bash
# Installs Debian's Chromium (/usr/bin/chromium) for the live page's browser test
# (test/ui/live-page.test.ts, docs/live-page.md). Idempotent: a no-op when /usr/bin/chromium runs.
#
# Why Debian's package and not Playwright's own browser: `npx playwright install` downloads its
# browser builds from Microsoft's CDN, which this network (package registries only) cannot reach;
# playwright-core drives any Chromium given as `executablePath`, and Debian's comes through apt.
# Unlike nginx and nats-server (unpacked into .tools/), Chromium pulls in dozens of shared
# libraries (X11, fonts, NSS, …), so it is installed with apt-get as a normal package.
set -euo pipefail

chromium=/usr/bin/chromium
if [ -x "$chromium" ] && "$chromium" --version >/dev/null 2>&1; then
  echo "fetch-chromium: $("$chromium" --version 2>/dev/null) already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "fetch-chromium: not root and no sudo: install Debian's chromium package by hand (apt-get install chromium)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine: try once as is, then after an update.
# shellcheck disable=SC2086 # $sudo is empty or one word
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
  { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

if ! "$chromium" --version >/dev/null 2>&1; then
  echo "fetch-chromium: $chromium was installed but does not run" >&2
  exit 1
fi
echo "fetch-chromium: $("$chromium" --version 2>/dev/null) installed"
