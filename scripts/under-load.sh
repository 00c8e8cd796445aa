#!/usr/bin/env bash
# Runs the library's test suite with CPU-bound processes running beside it (two by
# default, as many as this CI machine has cores), so that a test whose pass depends on
# being scheduled promptly fails here rather than on a busy developer machine (issue #37).
# The burners are plain shell loops, stopped when the run ends; should this script be
# killed outright, each still stops by itself after two hours.
#
# Usage: scripts/library-tests-under-load.sh <swift> <parallel width> [swift flags…]
# MEDVAULT_LOAD_PROCESSES sets the number of burners.
set -uo pipefail
SWIFT="$1"; WIDTH="$2"; shift 2
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
echo "library-tests-under-load: ${BURNERS} CPU-bound processes running beside the suite"

SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="$WIDTH" "$SWIFT" test "$@"
