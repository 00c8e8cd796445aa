#!/usr/bin/env bash
# Runs the GRDBCoexistence fixture app (Tests/Fixtures/ReadmeApp) in both orders of
# calls (the app links the system SQLite, so it is loaded first either way; SQLCipher is
# loaded at the first vault), each in a fresh folder, then checks from outside the
# process: the system `sqlite3` shell reads the plain database GRDB wrote, and no file of
# the vault holds the patient's name in the clear.
#
# Usage: scripts/grdb-coexistence.sh <GRDBCoexistence executable>
set -euo pipefail
APP="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for order in grdb-first medvault-first; do
    folder="$work/$order"
    mkdir -p "$folder"
    "$APP" "$folder" "$order"
    notes=$(sqlite3 "$folder/app.sqlite" "SELECT count(*) FROM note WHERE body = 'coexistence note'")
    if [ "$notes" != "2" ]; then
        echo "grdb-coexistence ($order): the sqlite3 shell read $notes notes, not 2" >&2
        exit 1
    fi
    if [ ! -s "$folder/vault/records.medvault" ]; then
        echo "grdb-coexistence ($order): no vault database was written" >&2
        exit 1
    fi
    # grep: 1 is "not found" (the pass); 0 found it; anything else could not read.
    status=0
    grep -rl "Zyxcoexistmarker" "$folder/vault" >/dev/null || status=$?
    if [ "$status" -ne 1 ]; then
        echo "grdb-coexistence ($order): a vault file holds the patient's name in the clear, or could not be read (grep $status)" >&2
        exit 1
    fi
    echo "grdb-coexistence ($order): the sqlite3 shell reads GRDB's database; the vault's files hold no marker"
done
