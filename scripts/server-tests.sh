#!/usr/bin/env bash
# Builds the sync server package and runs all its tests in one `swift test` process,
# under a time limit: a guard, so that a test that hangs fails the run instead of
# holding CI (MEDVAULT_SERVER_TEST_LIMIT seconds, 600 by default: on a loaded CI machine
# the suite once took over 240). A test that fails or a run that hits the limit is never
# retried.
#
# Usage: scripts/server-tests.sh <swift> <scratch-path> [swift flags…]
set -uo pipefail
SWIFT="$1"; SCRATCH="$2"; shift 2
LIMIT="${MEDVAULT_SERVER_TEST_LIMIT:-600}"

"$SWIFT" build --package-path Server --scratch-path "$SCRATCH" --build-tests "$@" || exit $?

timeout --signal=KILL "$LIMIT" "$SWIFT" test --package-path Server --scratch-path "$SCRATCH" --skip-build \
    < /dev/null 2>&1 | cat
status=${PIPESTATUS[0]}
if [ "$status" -eq 137 ]; then
    echo "server-tests: the tests did not finish within ${LIMIT}s; killed" >&2
fi
exit "$status"
