// SHA-256 compression with the CPU's SHA instructions (x86-64 SHA extensions), for
// MedVaultKeys' SecureSHA256: the audit trail MACs every entry, and the hardware rounds
// are several times faster than portable code. Output is FIPS 180-4 SHA-256 exactly.
#ifndef MEDVAULT_CSHA256_H
#define MEDVAULT_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions (and SSSE3, SSE4.1), so that
/// `medvault_sha256_compress_hardware` may be called; else 0 (other CPUs, other architectures).
int medvault_sha256_hardware_available(void);

/// Compresses `blocks` 64-byte blocks at `data` (any alignment) into the chaining value
/// `state` (8 words, A..H). Call only when `medvault_sha256_hardware_available()` is 1.
void medvault_sha256_compress_hardware(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
