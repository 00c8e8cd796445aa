#ifndef MEDVAULT_CSECRETSCRUB_H
#define MEDVAULT_CSECRETSCRUB_H

/// Clears what a computation on a secret may leave outside the caller's secure buffers:
/// the CPU's vector registers (a hash's chaining value copied through them) and the
/// stack below the caller (the frames of the calls that just returned, where the
/// dynamic linker's lazy-binding trampoline saves every vector register on a first call).
///
/// Call it on the thread that computed, right after the computation. The registers are
/// cleared first, so a lazy binding of its one library call (memset) saves zeros. On
/// processors other than x86-64 only the stack is cleared. General-purpose registers are
/// not cleared: a key's bytes pass through them only in SQLCipher and libargon2, whose
/// frames are not scrubbed either.
void medvault_scrub_after_secret_use(void);

#endif
