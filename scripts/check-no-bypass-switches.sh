#!/usr/bin/env bash
# Proves, with `nm`, that a build of the MedVault module holds none of the switches that
# weaken the vault (issue #35): turning the change log or the audit trail off, writing
# synthetic audit entries, handing out the raw sync keys. They compile only under the
# package traits BenchmarkSwitches and SyncKeysSPI, off by default; `make readme-app`
# runs this on the MedVault objects of an app's own build (default traits), so it checks
# what an app links. `#if` removes the code before optimisation, so a debug build's
# symbols are a release build's. A control symbol every build has must be found, or the
# scan reads the wrong files.
#
# Usage: scripts/check-no-bypass-switches.sh <folder holding MedVault's .o files>
set -euo pipefail
folder="$1"
shopt -s nullglob
objects=("$folder"/*.o)
if [ "${#objects[@]}" -lt 50 ]; then
    echo "check-no-bypass-switches: ${#objects[@]} object files in $folder: not MedVault's build" >&2
    exit 1
fi
if ! symbols=$(nm "${objects[@]}" 2>&1); then
    echo "check-no-bypass-switches: nm failed on the objects of $folder:" >&2
    echo "$symbols" | tail -5 >&2
    exit 1
fi
# The control must be defined here (a symbol nm lists with a section letter, not U).
# (Into a variable first: `nm | grep -q` under pipefail fails when grep stops reading.)
defined=$(nm --defined-only "${objects[@]}" 2>/dev/null)
if ! grep -q "busyTimeoutMilliseconds" <<<"$defined"; then
    echo "check-no-bypass-switches: the control symbol is missing: the scan reads the wrong files" >&2
    exit 1
fi
found=0
for name in _auditTrailDisabled _changeLogDisabled _appendSyntheticEntries appendSyntheticAuditEntries withSyncKeysSPI \
            14StatementProbeC _statementProbe; do
    if grep -q "$name" <<<"$symbols"; then
        echo "check-no-bypass-switches: $name is in the library an app links" >&2
        found=1
    fi
done
[ "$found" -eq 0 ] && echo "check-no-bypass-switches: none of the switches is in ${#objects[@]} objects of $folder"
exit "$found"
