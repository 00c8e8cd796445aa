#!/usr/bin/env bash
# Runs the sync server package's tests in two groups, one `swift test` process each:
# the suites that kill, restart and signal real processes (the server executable,
# PostgreSQL), then the others.
#
# Why groups, a time limit and one retry: run as one process, the suite has been seen to
# stop making progress (every test suspended, no thread busy) in 3 of 6 runs on the 2-core
# machine, with no test failing. The cause is not
# found yet (docs/sync-server.md, "Known issues"). Fewer concurrent child processes make
# it rarer; a group that makes no progress within the limit is killed and run once more,
# and the log says so. A test that FAILS is never retried.
#
# Usage: scripts/server-tests.sh <swift> <scratch-path> [swift flags…]
set -uo pipefail
SWIFT="$1"; SCRATCH="$2"; shift 2
LIMIT="${MEDVAULT_SERVER_TEST_LIMIT:-240}"
PROCESS_SUITES='SyncEngineRestartTests|HTTPSyncTransportRestartTests|SyncServerProcessTests'

"$SWIFT" build --package-path Server --scratch-path "$SCRATCH" --build-tests "$@" || exit $?

run_group() {
    local name="$1"; shift
    for attempt in 1 2; do
        timeout --signal=KILL "$LIMIT" "$SWIFT" test --package-path Server --scratch-path "$SCRATCH" --skip-build "$@" \
            < /dev/null 2>&1 | cat
        local status=${PIPESTATUS[0]}
        if [ "$status" -ne 137 ]; then return "$status"; fi
        echo "server-tests: the $name group made no progress within ${LIMIT}s (attempt $attempt); killed" >&2
        pkill -9 -f MedVaultSyncServerPackageTests 2>/dev/null || true
    done
    return 1
}

run_group "process" --filter "$PROCESS_SUITES" || exit $?
run_group "other" --skip "$PROCESS_SUITES" || exit $?
