#!/usr/bin/env bash
# promtool (Debian package prometheus) validates the /metrics exposition in test/metrics.test.ts.
#
#   scripts/promtool.sh install    installs Debian's prometheus package unless promtool is on PATH
#
# test/global-setup.ts runs it when the metrics test is in the run; .ci/run runs it up front.
# Installing needs root (apt-get); a failure exits non-zero with the reason on stderr.
set -euo pipefail

PACKAGE=prometheus
LOG=${TMPDIR:-/tmp}/promtool-apt.log

log() { echo "promtool: $*" >&2; }
die() {
  log "$*"
  exit 1
}

cmd_install() {
  if command -v promtool >/dev/null 2>&1; then
    log "already installed ($(command -v promtool))"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "promtool is missing and apt-get is not available: install Prometheus' promtool by hand"
  export DEBIAN_FRONTEND=noninteractive
  log "apt-get install $PACKAGE"
  if ! apt-get install -y --no-install-recommends "$PACKAGE" >"$LOG" 2>&1; then
    # NB: before a first `apt-get update` the package lists may be missing or stale.
    log "apt-get install failed; running apt-get update first"
    apt-get update >>"$LOG" 2>&1 ||
      die "apt-get update failed (needs root; see $LOG): $(tail -n 3 "$LOG" | tr '\n' ' ')"
    apt-get install -y --no-install-recommends "$PACKAGE" >>"$LOG" 2>&1 ||
      die "apt-get install $PACKAGE failed (needs root; see $LOG): $(tail -n 3 "$LOG" | tr '\n' ' ')"
  fi
  command -v promtool >/dev/null 2>&1 || die "promtool still missing after apt-get install $PACKAGE"
  log "installed $PACKAGE ($(command -v promtool))"
}

case "${1:-}" in
  install) cmd_install ;;
  *) die "usage: scripts/promtool.sh install" ;;
esac
