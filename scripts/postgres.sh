#!/usr/bin/env bash
# A real PostgreSQL server for the tests and the multi-instance checks: Debian's postgresql-15
# (shared/reference/test-components.md §3), a throwaway cluster bound to 127.0.0.1.
#
#   scripts/postgres.sh install      installs Debian's postgresql (skipped when present)
#   scripts/postgres.sh start DIR    initdb + start a cluster in DIR (trust auth, fsync off),
#                                    writes DIR/env (SVC_TEST_PG_URL and the postmaster's PID)
#   scripts/postgres.sh stop DIR     fast shutdown of the cluster in DIR
#
# Port: 55432; override with SVC_PG_PORT. fsync is off (a throwaway cluster); SVC_PG_FSYNC=on keeps
# it (the benchmark's cluster, closer to SQLite's WAL with synchronous=NORMAL).
set -euo pipefail

PG_PORT="${SVC_PG_PORT:-55432}"
PG_BIN=/usr/lib/postgresql/15/bin

log() { echo "postgres: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# initdb and postgres refuse to run as root: run them as the `postgres` user then.
as_pg() {
  if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cmd_install() {
  if [[ -x $PG_BIN/postgres ]]; then
    log "postgresql-15 already installed"
    return 0
  fi
  [[ $(id -u) == 0 ]] || die "installing PostgreSQL needs root (apt-get install postgresql-15)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-cache policy postgresql-15 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    log "apt-get update"
    apt-get update >/tmp/postgres-apt.log 2>&1 || die "apt-get update failed (see /tmp/postgres-apt.log)"
  fi
  log "apt-get install postgresql-15"
  apt-get install -y --no-install-recommends postgresql-15 postgresql-client-15 >/tmp/postgres-apt.log 2>&1 ||
    die "apt-get install failed (see /tmp/postgres-apt.log)"
}

cmd_start() {
  local dir=${1:?usage: postgres.sh start DIR}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [[ -x $PG_BIN/postgres ]] || cmd_install
  if [[ $(id -u) == 0 ]]; then chown postgres: "$dir"; fi
  local data="$dir/data"
  as_pg "$PG_BIN/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
    die "initdb failed: $(cat "$dir/initdb.log")"
  # NB: the socket goes into the cluster's own folder, never the shared /run path.
  as_pg "$PG_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories=$data -c fsync=${SVC_PG_FSYNC:-off} -c synchronous_commit=off -c full_page_writes=${SVC_PG_FSYNC:-off} -c max_connections=400" \
    start >/dev/null || die "pg_ctl start failed: $(tail -20 "$dir/server.log")"
  local pid
  pid=$(head -1 "$data/postmaster.pid")
  {
    echo "SVC_TEST_PG_URL=postgres://postgres@127.0.0.1:$PG_PORT/postgres"
    echo "SVC_TEST_PG_PID=$pid"
  } >"$dir/env"
  log "PostgreSQL up on 127.0.0.1:$PG_PORT (pid $pid)"
}

cmd_stop() {
  local dir=${1:?usage: postgres.sh stop DIR}
  [[ -f $dir/data/postmaster.pid ]] || return 0
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop "${2:-}" ;;
  *) die "usage: postgres.sh install|start DIR|stop DIR" ;;
esac
