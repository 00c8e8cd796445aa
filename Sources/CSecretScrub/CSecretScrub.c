#include "CSecretScrub.h"
#include <string.h>

#if defined(__x86_64__)
// Each CPU feature is asked once; executing an instruction the CPU lacks would be SIGILL.
// Threads that ask at once compute the same answer; the atomics make that well defined.
static int vector_level(void) {
    static int level = -1;
    int known = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    __builtin_cpu_init();
    known = __builtin_cpu_supports("avx512f") ? 2 : (__builtin_cpu_supports("avx") ? 1 : 0);
    __atomic_store_n(&level, known, __ATOMIC_RELAXED);
    return known;
}

__attribute__((target("avx512f"), noinline)) static void clear_zmm16_31(void) {
    __asm__ __volatile__(
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\t" "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\t" "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\t" "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\t" "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
        "vpxord %%zmm24, %%zmm24, %%zmm24\n\t" "vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
        "vpxord %%zmm26, %%zmm26, %%zmm26\n\t" "vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
        "vpxord %%zmm28, %%zmm28, %%zmm28\n\t" "vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\t" "vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
        ::: "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
            "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
}

__attribute__((target("avx"), noinline)) static void clear_ymm0_15(void) {
    // Zeroes all of ymm0-15 (and, with AVX-512, the upper halves of zmm0-15).
    __asm__ __volatile__("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                         "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

__attribute__((noinline)) static void clear_xmm0_15(void) {
    __asm__ __volatile__(
        "pxor %%xmm0, %%xmm0\n\t" "pxor %%xmm1, %%xmm1\n\t" "pxor %%xmm2, %%xmm2\n\t" "pxor %%xmm3, %%xmm3\n\t"
        "pxor %%xmm4, %%xmm4\n\t" "pxor %%xmm5, %%xmm5\n\t" "pxor %%xmm6, %%xmm6\n\t" "pxor %%xmm7, %%xmm7\n\t"
        "pxor %%xmm8, %%xmm8\n\t" "pxor %%xmm9, %%xmm9\n\t" "pxor %%xmm10, %%xmm10\n\t" "pxor %%xmm11, %%xmm11\n\t"
        "pxor %%xmm12, %%xmm12\n\t" "pxor %%xmm13, %%xmm13\n\t" "pxor %%xmm14, %%xmm14\n\t" "pxor %%xmm15, %%xmm15\n\t"
        ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
            "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
#endif

// 16 KiB below the caller, in eight frames of 2 KiB: deeper than libsodium's hash, AEAD
// and signing frames plus the lazy-binding trampoline's register save area (about 2.7 KiB
// with AVX-512). Each frame moves the stack pointer by little more than 2 KiB and writes
// its whole array, so near the end of a thread's stack the writes fault on the guard page
// instead of jumping over it (libsodium's sodium_stackzero takes the whole length in one
// frame). The vector registers are already clear when this runs, so a first call to
// memset through the lazy-binding trampoline saves zeros.
__attribute__((noinline)) static void burn_stack(int frames) {
    unsigned char bytes[2048];
    memset(bytes, 0, sizeof bytes);
    if (frames > 1) burn_stack(frames - 1);
    // The stores must happen although nothing reads the array again, and the frame must
    // outlive the deeper call (no tail call reusing it).
    __asm__ __volatile__("" : : "r"(bytes) : "memory");
}

void medvault_scrub_after_secret_use(void) {
#if defined(__x86_64__)
    switch (vector_level()) {
    case 2: clear_ymm0_15(); clear_zmm16_31(); break;
    case 1: clear_ymm0_15(); break;
    default: clear_xmm0_15(); break;
    }
#endif
    burn_stack(8);
}
