#!/usr/bin/env bash
# Installs what MedVault builds and tests against, if it is missing:
# - SQLCipher (libsqlcipher-dev, plus the sqlcipher shell the tests use), Argon2
#   (libargon2-dev) and libsodium (libsodium-dev): Debian/Ubuntu via apt-get (as root, or
#   through sudo); macOS via Homebrew;
# - libcurl's headers (libcurl4-openssl-dev, Linux only): the sync transport's HTTP
#   client on Linux (Sources/CCurlHTTP) links libcurl directly, the library
#   FoundationNetworking already loads;
# - SQLite's headers (libsqlite3-dev): GRDB, which the benchmarks' GRDB peer and the
#   GRDB coexistence check build, links the system SQLite; its shell (sqlite3) reads what
#   the coexistence check's GRDB wrote;
# - PostgreSQL's server binaries (postgresql: initdb, pg_ctl, pg_dump, psql): the sync
#   server's tests (Server/) start their own PostgreSQL; detected by initdb;
# - Python's sqlcipher3 module (PyPI sqlcipher3-binary, which bundles SQLCipher 4):
#   the test that proves a vault opens under SQLCipher 4 drives it through python3.
#   Installed with pip; where the Python is "externally managed" (PEP 668), with
#   --break-system-packages, since it is a self-contained wheel.
# - Python's fhir.resources (PyPI, pinned; its R4B models): the independent validator of
#   the FHIR R4 export, driven by Tests/Scripts/fhir_validate.py. Installed the same way.
# - Python's argon2-cffi and cryptography (PyPI): the independent offline guesser of
#   Tests/Scripts/keyring_guess.py, which the sync server's tests run against its pg_dump,
#   and the reference side of the primitives' differential test; cryptography-vectors
#   (pinned): the RFC vectors the primitives are tested against.
# Prints a clear message and fails where none of this works.
set -euo pipefail

have_system() {
  command -v pkg-config >/dev/null 2>&1 &&
    pkg-config --exists sqlcipher libargon2 libsodium sqlite3 &&
    { [ "$(uname -s)" != Linux ] || pkg-config --exists libcurl; } &&
    command -v sqlcipher >/dev/null 2>&1 && command -v sqlite3 >/dev/null 2>&1
}

have_python_pip() {
  command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1
}

have_sqlcipher3() {
  command -v python3 >/dev/null 2>&1 && python3 -c 'import sqlcipher3' >/dev/null 2>&1
}

FHIR_RESOURCES_VERSION=7.1.0
# The RFC vectors the primitives are tested against (56 MB of text files).
CRYPTOGRAPHY_VECTORS_VERSION=50.0.2
have_fhir_resources() {
  command -v python3 >/dev/null 2>&1 &&
    python3 -c 'from fhir.resources.R4B import construct_fhir_element' >/dev/null 2>&1
}

have_guesser_modules() {
  command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import argon2.low_level, cryptography.hazmat.primitives.ciphers.aead, cryptography_vectors' >/dev/null 2>&1
}

# apt-get install "$@" as root or through sudo; fails with a message otherwise.
apt_install() {
  local run
  if [ "$(id -u)" -eq 0 ]; then
    run=()
  elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
    run=(sudo)
  else
    echo "MedVault needs: $*" >&2
    echo "They are missing and this user can neither run apt-get as root nor use sudo." >&2
    echo "Ask an administrator to run: apt-get install $*" >&2
    exit 1
  fi
  echo "Installing $* ..." >&2
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# MARK: - System libraries

if ! have_system; then
  if command -v apt-get >/dev/null 2>&1; then
    apt_install pkg-config libsqlcipher-dev sqlcipher libargon2-dev libsodium-dev libsqlite3-dev sqlite3 \
      libcurl4-openssl-dev
  elif command -v brew >/dev/null 2>&1; then
    brew install pkg-config sqlcipher argon2 libsodium sqlite
  else
    echo "MedVault needs SQLCipher (pkg-config 'sqlcipher', and the 'sqlcipher' shell), Argon2 (pkg-config 'libargon2'), libsodium (pkg-config 'libsodium'), SQLite's headers (pkg-config 'sqlite3') and, on Linux, libcurl's (pkg-config 'libcurl')." >&2
    echo "No apt-get or brew was found: install them with your system's package manager." >&2
    exit 1
  fi
  if ! have_system; then
    echo "SQLCipher, Argon2, libsodium, SQLite or libcurl is still not found through pkg-config after installing." >&2
    exit 1
  fi
fi

# MARK: - PostgreSQL, for the sync server's tests

have_postgres() {
  command -v initdb >/dev/null 2>&1 && return 0
  local bindir
  bindir=$(pg_config --bindir 2>/dev/null || true)
  [ -n "$bindir" ] && [ -x "$bindir/initdb" ] && return 0
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

if ! have_postgres; then
  if command -v apt-get >/dev/null 2>&1; then
    apt_install postgresql
  elif command -v brew >/dev/null 2>&1; then
    brew install postgresql
  else
    echo "The sync server's tests need PostgreSQL's server binaries (initdb, pg_ctl): install PostgreSQL." >&2
    exit 1
  fi
  if ! have_postgres; then
    echo "PostgreSQL's initdb is still not found after installing." >&2
    exit 1
  fi
fi

# MARK: - Python's sqlcipher3 (SQLCipher 4), for the compatibility test

if have_sqlcipher3 && have_fhir_resources && have_guesser_modules; then
  exit 0
fi

if ! have_python_pip; then
  if command -v apt-get >/dev/null 2>&1; then
    apt_install python3 python3-pip
  elif command -v brew >/dev/null 2>&1 && ! command -v python3 >/dev/null 2>&1; then
    brew install python
  fi
fi
if ! have_python_pip; then
  echo "MedVault's SQLCipher 4 compatibility test needs python3 with pip; install them and run 'make deps' again." >&2
  exit 1
fi

echo "Installing the Python modules sqlcipher3 (PyPI sqlcipher3-binary), fhir.resources, argon2-cffi, cryptography and cryptography-vectors ..." >&2
pip_log=$(mktemp)
trap 'rm -f "$pip_log"' EXIT
pip_install() {
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check "$@" \
    sqlcipher3-binary "fhir.resources==$FHIR_RESOURCES_VERSION" argon2-cffi cryptography \
    "cryptography-vectors==$CRYPTOGRAPHY_VECTORS_VERSION"
}
if ! pip_install 2>"$pip_log"; then
  if grep -qi 'externally-managed' "$pip_log"; then
    # PEP 668: the wheel bundles its own SQLCipher and touches no system package.
    pip_install --break-system-packages
  else
    cat "$pip_log" >&2
    exit 1
  fi
fi

if ! have_sqlcipher3; then
  echo "python3 still cannot import sqlcipher3 after 'pip install sqlcipher3-binary'." >&2
  exit 1
fi
if ! have_fhir_resources; then
  echo "python3 still cannot import fhir.resources.R4B after 'pip install fhir.resources==$FHIR_RESOURCES_VERSION'." >&2
  exit 1
fi
if ! have_guesser_modules; then
  echo "python3 still cannot import argon2 (argon2-cffi), cryptography and cryptography_vectors after installing them." >&2
  exit 1
fi
