#!/usr/bin/env bash
# Fetches Debian trixie's nats-server (2.10.x) into .tools/nats-server (git-ignored) for the cluster
# tests (test/cluster/, test/journal/ — the JetStream journal runs on a real 3-node cluster).
#
# Why trixie: bookworm (this image) packages nats-server 2.9, which has no
# `jetstream { sync_interval: always }` (an fsync of every write before the publish is acknowledged);
# the cluster mode's durability promise relies on it, so 2.10 is the minimum (docs/cluster.md,
# "Durability: what an acknowledgement means").
#
# Nothing is installed on the machine and its apt configuration is not changed: apt's ordinary client
# reads a trixie source list from a temporary directory (the machine's own first Debian entry, with its
# keyring, its suite set to trixie), downloads the package and dpkg -x unpacks it. The binary is Go
# and links only libc, so it needs nothing else from trixie. Idempotent: a no-op when the binary
# already runs and is 2.10 or newer.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.tools/nats-server"
binary="$root/nats-server"

# "nats-server: v2.10.27" → succeeds when major.minor ≥ 2.10.
recent_enough() {
  local version
  version=$("$1" --version 2>/dev/null | sed -n 's/^nats-server: v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  [ -n "$version" ] || return 1
  set -- $version
  [ "$1" -gt 2 ] || { [ "$1" -eq 2 ] && [ "$2" -ge 10 ]; }
}

if [ -x "$binary" ] && recent_enough "$binary"; then
  echo "fetch-nats-server: $("$binary" --version) already in .tools/nats-server"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# apt downloads as its own user (_apt), which must be able to write here.
chmod 755 "$work"
mkdir -p "$work/lists/partial" "$work/sources"

# The machine's first Debian entry (deb822: a stanza ends at a blank line), pointed at trixie.
machine_sources=/etc/apt/sources.list.d/debian.sources
if [ ! -f "$machine_sources" ]; then
  echo "fetch-nats-server: $machine_sources not found; cannot derive a Debian mirror and keyring" >&2
  exit 1
fi
awk 'BEGIN { RS = ""; ORS = "\n" } NR == 1 { print; exit }' "$machine_sources" |
  sed 's/^Suites: .*/Suites: trixie/' > "$work/sources/trixie.sources"
grep -q '^Suites: trixie$' "$work/sources/trixie.sources" || {
  echo "fetch-nats-server: the first entry of $machine_sources has no Suites line" >&2
  exit 1
}

apt_options=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::sourceparts="$work/sources" -o Dir::State::Lists="$work/lists")
apt-get "${apt_options[@]}" update -qq
(cd "$work" && apt-get "${apt_options[@]}" download nats-server)

rm -rf "$root"
mkdir -p "$root/x"
dpkg -x "$work"/nats-server_*.deb "$root/x"
ln -s x/usr/sbin/nats-server "$binary"
if ! recent_enough "$binary"; then
  echo "fetch-nats-server: the downloaded nats-server is not 2.10 or newer: $("$binary" --version 2>&1)" >&2
  exit 1
fi
echo "fetch-nats-server: $("$binary" --version) in .tools/nats-server"
