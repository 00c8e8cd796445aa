#!/usr/bin/env bash
# make sync-demo: a throwaway PostgreSQL and sync server on loopback, then the SyncDemo
# example (two device vaults syncing through it), then everything stopped and removed.
#
#   scripts/sync-demo.sh <swift> <server scratch folder> [extra swift flags…]
#
# PostgreSQL runs from a temporary folder on a free port of 127.0.0.1 (as `nobody` when
# this runs as root: PostgreSQL refuses root), with trust authentication on loopback
# only; nothing of it outlives the script, whatever way it ends.
set -euo pipefail

SWIFT=${1:-swift}
SERVER_SCRATCH=${2:-.build-server}
shift 2 || true
FLAGS=("$@")

pg_bindir() {
  local dir
  dir=$(pg_config --bindir 2>/dev/null || true)
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
  done
  echo "PostgreSQL's initdb was not found: run make deps" >&2
  exit 1
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

as_pg_user() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && /usr/sbin/runuser -u nobody -- "$@")
  else
    "$@"
  fi
}

BIN=$(pg_bindir)
WORK=$(mktemp -d /tmp/medvault-sync-demo-XXXXXX)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ -f "$WORK/data/postmaster.pid" ]; then as_pg_user "$BIN/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

echo "== building the sync server and the demo"
"$SWIFT" build --package-path Server --scratch-path "$SERVER_SCRATCH" --product medvault-sync-server "${FLAGS[@]}"
"$SWIFT" build --product SyncDemo "${FLAGS[@]}"
SERVER_BIN="$("$SWIFT" build --package-path Server --scratch-path "$SERVER_SCRATCH" --show-bin-path "${FLAGS[@]}")/medvault-sync-server"
DEMO_BIN="$("$SWIFT" build --show-bin-path "${FLAGS[@]}")/SyncDemo"

echo "== starting PostgreSQL in $WORK"
[ "$(id -u)" -eq 0 ] && chown nobody "$WORK"
PG_PORT=$(free_port)
as_pg_user "$BIN/initdb" -D "$WORK/data" -U medvault --auth=trust -E UTF8 --no-locale -N >/dev/null
as_pg_user "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/postgres.log" -w -t 60 \
  -o "-p $PG_PORT -k $WORK -c listen_addresses=127.0.0.1" start >/dev/null
"$BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U medvault medvault_sync

echo "== starting medvault-sync-server"
PGHOST=127.0.0.1 PGPORT=$PG_PORT PGUSER=medvault PGDATABASE=medvault_sync PGSSLMODE=disable \
  MEDVAULT_SYNC_HOST=127.0.0.1 MEDVAULT_SYNC_PORT=0 LOG_LEVEL=warning \
  "$SERVER_BIN" > "$WORK/server.out" 2> "$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 1 300); do
  if grep -q "^listening on " "$WORK/server.out" 2>/dev/null; then break; fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$WORK/server.err" >&2; echo "the server exited" >&2; exit 1; fi
  sleep 0.1
done
ADDRESS=$(sed -n 's/^listening on //p' "$WORK/server.out" | head -1)
[ -n "$ADDRESS" ] || { echo "the server did not start listening" >&2; exit 1; }
echo "   listening on $ADDRESS"

echo "== SyncDemo"
"$DEMO_BIN" "http://$ADDRESS" "$WORK/devices"
