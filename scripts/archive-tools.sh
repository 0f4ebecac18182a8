#!/usr/bin/env bash
# Debian's unzip and the sqlite3 CLI open backup archives independently of svcbase in the
# backups tests (test/backups-*.test.ts: `unzip -t`, `PRAGMA integrity_check`).
#
#   scripts/archive-tools.sh install    installs Debian's unzip and sqlite3 unless both are on PATH
#
# test/global-setup.ts runs it when a backups test is in the run; .ci/run runs it up front.
# Installing needs root (apt-get); a failure exits non-zero with the reason on stderr.
set -euo pipefail

PACKAGES=(unzip sqlite3)
LOG=${TMPDIR:-/tmp}/archive-tools-apt.log

log() { echo "archive-tools: $*" >&2; }
die() {
  log "$*"
  exit 1
}

missing() {
  local p
  for p in "${PACKAGES[@]}"; do
    command -v "$p" >/dev/null 2>&1 || echo "$p"
  done
}

cmd_install() {
  local need
  need=$(missing)
  if [ -z "$need" ]; then
    log "already installed ($(command -v unzip), $(command -v sqlite3))"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "missing $need and apt-get is not available: install them by hand"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  log "apt-get install" $need
  # shellcheck disable=SC2086
  if ! apt-get install -y --no-install-recommends $need >"$LOG" 2>&1; then
    # NB: before a first `apt-get update` the package lists may be missing or stale.
    log "apt-get install failed; running apt-get update first"
    apt-get update >>"$LOG" 2>&1 ||
      die "apt-get update failed (needs root; see $LOG): $(tail -n 3 "$LOG" | tr '\n' ' ')"
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $need >>"$LOG" 2>&1 ||
      die "apt-get install $need failed (needs root; see $LOG): $(tail -n 3 "$LOG" | tr '\n' ' ')"
  fi
  need=$(missing)
  [ -z "$need" ] || die "still missing after apt-get install: $need"
  log "installed ($(command -v unzip), $(command -v sqlite3))"
}

case "${1:-}" in
  install) cmd_install ;;
  *) die "usage: scripts/archive-tools.sh install" ;;
esac
