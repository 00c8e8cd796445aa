#!/usr/bin/env bash
# Runs a command (CI: `make test`) with CPU-bound processes running beside it (two by
# default, as many as this CI machine has cores), so that a test whose pass depends on
# being scheduled promptly fails here rather than on a busy developer machine (issue #37).
# The burners are plain shell loops, stopped when the command ends; should this script
# be killed outright, each still stops by itself after two hours.
#
# Usage: scripts/under-load.sh <command> [arguments…]
# MEDVAULT_LOAD_PROCESSES sets the number of burners.
set -uo pipefail
BURNERS="${MEDVAULT_LOAD_PROCESSES:-2}"

pids=()
stop_burners() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    wait "${pids[@]}" 2>/dev/null
}
trap stop_burners EXIT
for _ in $(seq "$BURNERS"); do
    timeout 7200 sh -c 'while :; do :; done' &
    pids+=("$!")
done
echo "under-load: ${BURNERS} CPU-bound processes running beside: $*"

"$@"
