import CSecretScrub
import CSodium
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for secrets, from libsodium: `sodium_malloc`, `sodium_mlock`, `sodium_memzero`.
///
/// Each allocation is libsodium's guarded allocation: the secret sits at the end of pages
/// of its own, between two inaccessible guard pages and behind a canary, `mlock`-ed (kept
/// out of swap) and, on Linux, excluded from core dumps. Because no two secrets share a
/// page, unlocking one never unlocks the page of another, still live, secret. A released
/// secret's region is wiped, its canary checked, and kept for the next secret of the same
/// length (``SecureRegionPool``, bounded); the others go to `sodium_free`, which checks
/// the canary, wipes the pages and unmaps them.
///
/// The cost is four pages of address space and a few system calls per live secret (none
/// for a region the pool hands out), against a typical `RLIMIT_MEMLOCK` of 8 MiB: MedVault
/// holds a handful of secrets at a time, the pool keeps at most 12 pages locked while
/// idle, and scratch state that lives for one call (``withScratch(byteCount:_:)``) does
/// not use it.
/// When `mlock` is refused the secret is still guarded and wiped; only the swap protection
/// is lost. When libsodium cannot allocate (address space exhausted) the secret falls back
/// to the heap, still wiped on release.
enum SecureMemory {
    /// One secret's memory.
    struct Region {
        /// The secret's bytes: at least the requested count, a multiple of 16 (so that
        /// word-sized state inside is aligned), zero-filled at allocation.
        let bytes: UnsafeMutableRawBufferPointer
        /// Whether the pages are locked in RAM.
        let isLocked: Bool
        /// Whether the memory came from `sodium_malloc` (else from the heap).
        let isGuarded: Bool
    }

    /// Whether `sodium_init` succeeded (it is called once, before any other libsodium call;
    /// it fails only when the process cannot create a mutex or read the CPU's features).
    static var sodiumReady: Bool { LibSodium.ready }

    /// The system's page size.
    static let pageSize: Int = {
        let size = Int(sysconf(Int32(_SC_PAGESIZE)))
        return size > 0 ? size : 4096
    }()

    /// Zero-filled, guarded, locked memory for at least `byteCount` bytes: a wiped region
    /// from `pool` when it has one of that length, else a new `sodium_malloc`.
    static func allocate(byteCount: Int, pool: SecureRegionPool = .shared) -> Region {
        let length = (max(byteCount, 1) + 15) / 16 * 16
        if let reused = pool.take(length: length) {
            return Region(bytes: UnsafeMutableRawBufferPointer(start: reused.base, count: length),
                          isLocked: reused.isLocked, isGuarded: true)
        }
        if sodiumReady, let guarded = sodium_malloc(length) {
            pool.learnCanary(below: guarded)
            let bytes = UnsafeMutableRawBufferPointer(start: guarded, count: length)
            // sodium_malloc fills with 0xdb to catch reads of uninitialised memory.
            sodium_memzero(guarded, length)
            // It locks the pages already and does not say whether that worked: locking
            // them again (idempotent) says.
            return Region(bytes: bytes, isLocked: sodium_mlock(guarded, length) == 0, isGuarded: true)
        }
        let heap = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
        heap.initializeMemory(as: UInt8.self, repeating: 0)
        return Region(bytes: heap, isLocked: false, isGuarded: false)
    }

    /// Wipes the region and releases it: into `pool` when it is guarded and the pool
    /// takes it, else back to libsodium or the heap.
    static func deallocate(_ region: Region, pool: SecureRegionPool = .shared) {
        guard let base = region.bytes.baseAddress else { return }
        if region.isGuarded {
            guard !pool.keep(base, length: region.bytes.count, isLocked: region.isLocked) else { return }
            // Checks the canary, wipes, unlocks and unmaps.
            sodium_free(base)
            return
        }
        zero(region.bytes)
        region.bytes.deallocate()
    }

    /// Runs `body` with a zero-filled scratch buffer of `byteCount` bytes that is wiped
    /// (``zero(_:)``) before this returns, for intermediate secrets that live for one
    /// call: an HMAC state, an HKDF pseudo-random key.
    ///
    /// The buffer is on the stack for small sizes (the standard library decides), like
    /// libsodium's own scratch state: it is not `mlock`-ed, but it never outlives the
    /// call and is zeroed in a way the optimiser may not remove, so no copy is left
    /// behind in memory. Guarded pages (``allocate(byteCount:)``) cost several system
    /// calls each; they are kept for secrets that outlive a call.
    static func withScratch<Result>(
        byteCount: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(byteCount: max(byteCount, 1), alignment: 16) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            defer { zero(buffer) }
            return try body(buffer)
        }
    }

    /// Clears what a libsodium computation on a secret can leave outside its buffers, on
    /// the calling thread: the CPU's vector registers and 16 KiB of stack below the caller.
    ///
    /// A hash's chaining value or a cipher's key passes through vector registers, which
    /// keep it until other code overwrites them. The dynamic linker's lazy-binding
    /// trampoline saves every vector register on the stack at a library function's first
    /// call, and nothing clears that save area: `KeyScanProbe` found the audit trail's
    /// keyed HMAC state on a thread's stack after `lock()` in 5 of 36 runs before this
    /// was called (docs/keyring-format.md, "Primitives"). About 0.13 µs (a C loop of 200,000 calls on this machine).
    static func scrubAfterSecretUse() {
        medvault_scrub_after_secret_use()
    }

    /// Overwrites `buffer` with zeros in a way the optimiser may not remove (`sodium_memzero`).
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Whether two buffers of the same length are equal, in a time that depends only on
    /// the length (`sodium_memcmp`); `false` for different lengths.
    static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return sodium_memcmp(left, right, lhs.count) == 0
    }
}
