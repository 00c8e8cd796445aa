#!/usr/bin/env bash
# Installs the system libraries MedVault links against, if they are missing:
# SQLCipher (libsqlcipher-dev, plus the sqlcipher shell the tests use) and
# Argon2 (libargon2-dev). Debian/Ubuntu via apt-get (as root, or through sudo);
# macOS via Homebrew. Prints a clear message and fails where neither works.
set -euo pipefail

have_all() {
  command -v pkg-config >/dev/null 2>&1 &&
    pkg-config --exists sqlcipher libargon2 &&
    command -v sqlcipher >/dev/null 2>&1
}

if have_all; then
  exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
  packages=(pkg-config libsqlcipher-dev sqlcipher libargon2-dev)
  if [ "$(id -u)" -eq 0 ]; then
    run=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    run=(sudo)
  elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
    run=(sudo)
  else
    echo "MedVault needs: ${packages[*]}" >&2
    echo "They are missing and this user can neither run apt-get as root nor use sudo." >&2
    echo "Ask an administrator to run: apt-get install ${packages[*]}" >&2
    exit 1
  fi
  echo "Installing ${packages[*]} ..." >&2
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
elif command -v brew >/dev/null 2>&1; then
  brew install pkg-config sqlcipher argon2
else
  echo "MedVault needs SQLCipher (pkg-config 'sqlcipher', and the 'sqlcipher' shell) and Argon2 (pkg-config 'libargon2')." >&2
  echo "No apt-get or brew was found: install them with your system's package manager." >&2
  exit 1
fi

if ! have_all; then
  echo "SQLCipher or Argon2 is still not found through pkg-config after installing." >&2
  exit 1
fi
