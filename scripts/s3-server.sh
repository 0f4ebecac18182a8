#!/usr/bin/env bash
# A real S3-compatible server for the tests: Ceph RGW on a one-monitor, one-OSD memstore cluster,
# bound to 127.0.0.1 (shared/reference/test-components.md §1.1).
#
#   scripts/s3-server.sh install      installs Debian's radosgw and ceph daemons (skipped when present)
#   scripts/s3-server.sh start DIR    starts mon, OSD and RGW in DIR, creates a user and a warm bucket,
#                                     writes DIR/env (SVC_TEST_S3_* variables and the daemons' PIDs)
#   scripts/s3-server.sh stop DIR     SIGTERM to each daemon in reverse order, waits for them to exit
#
# Ports: 53300 (mon), 56800-56899 (OSD), 57480 (S3). Override the S3 port with SVC_S3_PORT.
set -euo pipefail

S3_PORT="${SVC_S3_PORT:-57480}"
MON_PORT="${SVC_S3_MON_PORT:-53300}"
ACCESS_KEY=SVCTESTACCESSKEY
SECRET_KEY=svctestsecretkey123
BUCKET=svcbase-test
PACKAGES=(radosgw ceph-mon ceph-osd ceph-common)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { echo "s3-server: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# Waits until "$@" succeeds, polling every 0.2 s, for at most $1 seconds.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
  log "$what ready after ${SECONDS}s"
}

installed() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
  done
}

cmd_install() {
  if installed; then
    log "ceph packages already installed"
    return 0
  fi
  [[ $(id -u) == 0 ]] || die "installing ceph needs root (apt-get install ${PACKAGES[*]})"
  export DEBIAN_FRONTEND=noninteractive
  # NB: before a first `apt-get update` the package lists may be missing or stale.
  if ! apt-cache policy radosgw 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    log "apt-get update"
    apt-get update >/tmp/s3-server-apt.log 2>&1 || die "apt-get update failed (see /tmp/s3-server-apt.log)"
  fi
  log "apt-get install ${PACKAGES[*]}"
  if ! apt-get install -y --no-install-recommends "${PACKAGES[@]}" >/tmp/s3-server-apt.log 2>&1; then
    log "apt-get install failed; running apt-get update first"
    apt-get update >>/tmp/s3-server-apt.log 2>&1 || die "apt-get update failed (see /tmp/s3-server-apt.log)"
    apt-get install -y --no-install-recommends "${PACKAGES[@]}" >>/tmp/s3-server-apt.log 2>&1 ||
      die "apt-get install ${PACKAGES[*]} failed (see /tmp/s3-server-apt.log)"
  fi
  installed || die "ceph packages still missing after apt-get install"
  log "installed ${PACKAGES[*]}"
}

port_in_use() {
  # /dev/tcp connects when something listens on the port.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

http_up() {
  node -e "fetch('http://127.0.0.1:$S3_PORT/').then(() => process.exit(0), () => process.exit(1))"
}

osd_up() {
  ceph -c "$DIR/ceph.conf" --connect-timeout 5 osd stat 2>/dev/null | grep -q '1 up'
}

cmd_start() {
  DIR=$(realpath -m "${1:?usage: s3-server.sh start DIR}")
  command -v radosgw >/dev/null || die "radosgw is not installed: run scripts/s3-server.sh install"
  port_in_use "$S3_PORT" && die "port $S3_PORT is in use (another RGW still running?)"
  port_in_use "$MON_PORT" && die "port $MON_PORT is in use (another ceph-mon still running?)"
  SECONDS=0
  mkdir -p "$DIR"/{run,log,rgw,mon.a}
  rm -f "$DIR/env"
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$DIR/ceph.conf" <<EOF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$MON_PORT
public_addr = 127.0.0.1
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
ms_client_mode = crc
ms_mon_service_mode = crc
ms_mon_cluster_mode = crc
ms_service_mode = crc
ms_cluster_mode = crc
ms_bind_msgr1 = false
ms_bind_port_min = 56800
ms_bind_port_max = 56899
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
run_dir = $DIR/run
admin_socket = $DIR/run/\$name.asok
log_file = $DIR/log/\$name.log
keyring = $DIR/keyring
[mon.a]
mon_data = $DIR/mon.a
[osd]
osd_data = $DIR/osd\$id
osd_objectstore = memstore
memstore_device_bytes = 1073741824
osd_max_object_name_len = 2048
osd_max_object_namespace_len = 64
[client.rgw.a]
rgw_frontends = beast endpoint=127.0.0.1:$S3_PORT
rgw_data = $DIR/rgw
EOF
  local conf="$DIR/ceph.conf"
  cd "$DIR"
  ceph-authtool --create-keyring "$DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$MON_PORT]" "$DIR/monmap" >/dev/null
  ceph-mon --mkfs -i a --monmap "$DIR/monmap" -c "$conf" --keyring "$DIR/keyring"

  ceph-mon -i a -c "$conf" -f >"$DIR/log/mon.out" 2>&1 &
  echo "MON_PID=$!" >"$DIR/pids"
  wait_for 15 mon ceph -c "$conf" --connect-timeout 5 mon stat || die "ceph-mon did not start (see $DIR/log)"

  local uuid id
  uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$(ceph -c "$conf" osd new "$uuid")
  mkdir -p "$DIR/osd$id"
  ceph-osd -i "$id" --mkfs --osd-uuid "$uuid" -c "$conf" >"$DIR/log/osd-mkfs.out" 2>&1
  ceph-osd -i "$id" -c "$conf" -f >"$DIR/log/osd.out" 2>&1 &
  echo "OSD_PID=$!" >>"$DIR/pids"
  wait_for 30 osd osd_up || die "ceph-osd did not come up (see $DIR/log)"

  radosgw -c "$conf" -n client.rgw.a -f >"$DIR/log/rgw.out" 2>&1 &
  echo "RGW_PID=$!" >>"$DIR/pids"
  wait_for 40 rgw http_up || die "radosgw did not answer on 127.0.0.1:$S3_PORT (see $DIR/log)"

  radosgw-admin -c "$conf" user create --uid=svctest --display-name=svctest \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null ||
    die "radosgw-admin user create failed"

  # Creates the bucket and does a first round trip: RGW makes its index and data pools lazily.
  # NB: runs from the repository so that node resolves @aws-sdk/client-s3 from its node_modules.
  (cd "$REPO" && AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true SVC_S3_ENDPOINT="http://127.0.0.1:$S3_PORT" node --input-type=module -e "
    import { S3Client, CreateBucketCommand, PutObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3'
    const s3 = new S3Client({ endpoint: process.env.SVC_S3_ENDPOINT, region: 'us-east-1', forcePathStyle: true,
      credentials: { accessKeyId: '$ACCESS_KEY', secretAccessKey: '$SECRET_KEY' } })
    await s3.send(new CreateBucketCommand({ Bucket: '$BUCKET' }))
    await s3.send(new PutObjectCommand({ Bucket: '$BUCKET', Key: 'warm-up', Body: 'x' }))
    await s3.send(new DeleteObjectCommand({ Bucket: '$BUCKET', Key: 'warm-up' }))
  ") 2>"$DIR/log/warm-up.err" || die "bucket warm-up failed: $(cat "$DIR/log/warm-up.err")"

  {
    echo "SVC_TEST_S3_ENDPOINT=http://127.0.0.1:$S3_PORT"
    echo "SVC_TEST_S3_BUCKET=$BUCKET"
    echo "SVC_TEST_S3_ACCESS_KEY=$ACCESS_KEY"
    echo "SVC_TEST_S3_SECRET=$SECRET_KEY"
    echo "SVC_TEST_S3_REGION=us-east-1"
    cat "$DIR/pids"
  } >"$DIR/env"
  log "S3 ready on http://127.0.0.1:$S3_PORT (bucket $BUCKET) after ${SECONDS}s"
}

# True while a process runs. A zombie counts as gone once its last thread has exited (NB: the
# main thread of a multi-threaded daemon turns zombie while its other threads still shut down).
alive() {
  local status
  status=$(cat "/proc/$1/status" 2>/dev/null) || return 1
  local state threads
  state=$(awk '/^State:/ { print $2 }' <<<"$status")
  threads=$(awk '/^Threads:/ { print $2 }' <<<"$status")
  [[ -n "$state" ]] || return 1
  [[ "$state" != Z || "${threads:-1}" -gt 1 ]]
}

cmd_stop() {
  DIR=$(realpath -m "${1:?usage: s3-server.sh stop DIR}")
  [[ -f "$DIR/pids" ]] || return 0
  local pids=() name pid
  while IFS='=' read -r name pid; do
    [[ -n "$pid" ]] && pids=("$pid" "${pids[@]}")
  done <"$DIR/pids"
  # NB: one at a time (RGW, OSD, mon): each exits in about 2 s, while signalling them together
  # makes the OSD wait on a mon that is already gone.
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || continue
    local deadline=$((SECONDS + 15))
    while alive "$pid"; do
      if ((SECONDS >= deadline)); then
        log "pid $pid did not exit after SIGTERM; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        break
      fi
      sleep 0.1
    done
  done
  rm -f "$DIR/pids"
  log "stopped"
}

case "${1:-}" in
install) cmd_install ;;
start) cmd_start "${2:-}" ;;
stop) cmd_stop "${2:-}" ;;
*) die "usage: s3-server.sh install | start DIR | stop DIR" ;;
esac
