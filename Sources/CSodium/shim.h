// libsodium (Debian libsodium-dev 1.0.18, Homebrew libsodium): MedVaultKeys' AEAD,
// HMAC-SHA256, SHA-256, constant-time comparison and secret memory.
#include <sodium.h>
