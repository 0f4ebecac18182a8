#!/usr/bin/env bash
# Debian's Chromium, driven headless by playwright-core in the dashboard's end-to-end tests
# (test/dashboard-*.test.ts, test/helpers/browser.ts). Never `playwright install`: browser
# downloads are not reachable here; Debian's package is.
#
#   scripts/chromium.sh install    installs Debian's chromium unless /usr/bin/chromium exists
#
# test/global-setup.ts runs it when a dashboard test is in the run; .ci/run runs it up front.
# Installing needs root (apt-get); a failure exits non-zero with the reason on stderr.
set -euo pipefail

BIN=/usr/bin/chromium
LOG=${TMPDIR:-/tmp}/chromium-apt.log

log() { echo "chromium: $*" >&2; }
die() {
  log "$*"
  exit 1
}

cmd_install() {
  if [ -x "$BIN" ]; then
    log "already installed ($BIN)"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || die "$BIN is missing and apt-get is not available"
  export DEBIAN_FRONTEND=noninteractive
  log "apt-get install chromium"
  if ! apt-get install -y --no-install-recommends chromium fonts-dejavu-core >"$LOG" 2>&1; then
    # NB: before a first `apt-get update` the package lists may be missing or stale.
    log "apt-get install failed; running apt-get update first"
    apt-get update >>"$LOG" 2>&1 ||
      die "apt-get update failed (needs root; see $LOG): $(tail -n 3 "$LOG" | tr '\n' ' ')"
    apt-get install -y --no-install-recommends chromium fonts-dejavu-core >>"$LOG" 2>&1 ||
      die "apt-get install chromium failed (needs root; see $LOG): $(tail -n 3 "$LOG" | tr '\n' ' ')"
  fi
  [ -x "$BIN" ] || die "still missing after apt-get install: $BIN"
  log "installed ($BIN)"
}

case "${1:-}" in
  install) cmd_install ;;
  *) die "usage: scripts/chromium.sh install" ;;
esac
