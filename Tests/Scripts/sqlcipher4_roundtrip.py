#!/usr/bin/env python3
"""Opens a MedVault database with SQLCipher 4 (PyPI's sqlcipher3-binary), independently of
MedVault: proves a vault written with SQLCipher 3.4 reads and writes under SQLCipher 4
with the settings documented in docs/inspecting-a-vault.md.

Usage: sqlcipher4_roundtrip.py DATABASE MODE
  MODE "documented": apply the recipe of docs/inspecting-a-vault.md (below), print the
       patient first names and the compat_marker rows, insert one marker row, commit,
       checkpoint and close.
  MODE "given": apply the PRAGMA statements given on standard input, print the same, and
       write nothing.

Standard input is one JSON object: {"key": "<64 hex digits>", "pragmas": [...]}. The key
comes through stdin, never argv or the environment, where other users could see it.
Prints one JSON object on stdout. Exit status 3 when the sqlcipher3 module is missing.
"""
import json
import sys

# The recipe of docs/inspecting-a-vault.md for SQLCipher 4, after PRAGMA key.
DOCUMENTED_RECIPE = [
    "PRAGMA cipher_compatibility = 3",
    "PRAGMA cipher_page_size = 4096",
    "PRAGMA cipher_use_hmac = ON",
    "PRAGMA cipher_hmac_algorithm = HMAC_SHA1",
    "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1",
    "PRAGMA kdf_iter = 64000",
    "PRAGMA fast_kdf_iter = 2",
]


def main():
    try:
        import sqlcipher3
    except ImportError:
        print("the Python module sqlcipher3 (PyPI sqlcipher3-binary) is missing: run `make deps`",
              file=sys.stderr)
        return 3
    database, mode = sys.argv[1], sys.argv[2]
    request = json.loads(sys.stdin.read())
    key = request["key"]
    if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        print("the key must be 64 lowercase hex digits", file=sys.stderr)
        return 2
    pragmas = DOCUMENTED_RECIPE if mode == "documented" else request["pragmas"]

    connection = sqlcipher3.connect(database, isolation_level=None)
    try:
        connection.execute("PRAGMA key = \"x'%s'\"" % key)
        for pragma in pragmas:
            connection.execute(pragma).fetchall()
        version = connection.execute("PRAGMA cipher_version").fetchone()[0]
        names = [row[0] for row in connection.execute("SELECT first_name FROM patient ORDER BY first_name")]
        markers = [list(row) for row in connection.execute("SELECT origin, note FROM compat_marker ORDER BY origin")]
        journal = connection.execute("PRAGMA journal_mode").fetchone()[0]
        if mode == "documented":
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO compat_marker(origin, note) VALUES ('python', ?)",
                               ("written by SQLCipher " + version,))
            connection.execute("COMMIT")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()
    print(json.dumps({"cipher_version": version, "patients": names, "markers": markers,
                      "journal_mode": journal, "integrity": integrity}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
