#ifndef MEDVAULT_CSECRETSCRUB_H
#define MEDVAULT_CSECRETSCRUB_H

/// Clears what a computation on a secret may leave outside the caller's secure buffers:
/// the CPU's vector registers (a hash's chaining value copied through them) and the
/// stack below the caller (the frames of the calls that just returned, where the
/// dynamic linker's lazy-binding trampoline saves every vector register on a first call).
///
/// Call it on the thread that computed, right after the computation. No call, no
/// allocation: it cannot itself trigger a lazy binding.
void medvault_scrub_after_secret_use(void);

#endif
