import CSodium
import Foundation

/// Guarded regions (`sodium_malloc`) that held a secret, wiped, kept for the next secret
/// of the same length instead of being unmapped.
///
/// A guarded allocation costs an `mmap`, three `mprotect`s, two `mlock`s and two
/// `madvise`s, and its release an `munlock`, an `mprotect` and an `munmap`. In a C loop
/// on this project's 2-core machine that is 18 µs a secret with one thread, and 110 µs
/// while a second thread of the process runs (each `mprotect` and `munmap` then waits for
/// the other CPU to drop its TLB entries); wiping and reusing a region costs well under a
/// microsecond. A vault's open allocates a dozen short-lived secrets (the platform secret,
/// key-encryption keys, the vault and database keys, the audit and signing keys), so the
/// pool takes about a third of a millisecond off every open (docs/benchmarks-method.md,
/// "The open's guarded allocations").
///
/// What stays as libsodium gives it: each region is still a `sodium_malloc` of exactly the
/// length asked for, on pages no other secret shares, between guard pages, locked in RAM
/// and left out of core dumps. A region is wiped (`sodium_memzero`) the moment its secret
/// is released, before it enters the pool, so a pooled region holds zeros only. Its canary
/// (the 16 bytes libsodium writes below every region, the same in the whole process) is
/// compared when the region is released, as `sodium_free` does: a region whose canary was
/// overwritten goes to `sodium_free`, which aborts the process.
///
/// What changes: a pooled region stays readable and writable, so a pointer kept past its
/// secret's release (which `SecureBytes` never hands out: its bytes are lent to a closure)
/// would reach the next secret of that length instead of faulting. Making pooled regions
/// inaccessible would cost two `mprotect`s a reuse, 27 µs with a second thread running:
/// most of what the pool saves.
///
/// The pool is bounded: at most ``capacity`` regions of at most ``largestLength`` bytes
/// each (the rest are unmapped at once). The process's pool keeps at most 12 locked
/// pages (48 KiB) idle.
final class SecureRegionPool: @unchecked Sendable {
    // Safety of @unchecked Sendable: `idle`, `pooled` and `canary` are read and changed
    // only under `lock`; the regions listed in `idle` are owned by the pool.
    private let lock = NSLock()
    /// Idle regions by length ÷ 16 − 1 (lengths are multiples of 16), each with whether
    /// its pages are locked; the last released is taken first.
    private var idle: [[(base: UnsafeMutableRawPointer, isLocked: Bool)]]
    private var pooled = 0
    /// libsodium's canary, read below a region fresh from `sodium_malloc`.
    private var canary: [UInt8]?

    /// The most regions the pool keeps at a time.
    let capacity: Int
    /// The longest region the pool keeps, a multiple of 16.
    let largestLength: Int

    /// The process's pool: 12 regions of up to 256 bytes (every key MedVault holds; an
    /// open has at most a handful alive at once).
    static let shared = SecureRegionPool(capacity: 12, largestLength: 256)

    /// The canary's length, `CANARY_SIZE` in libsodium's `utils.c`.
    static let canaryLength = 16

    init(capacity: Int, largestLength: Int) {
        self.capacity = max(0, capacity)
        self.largestLength = max(16, largestLength / 16 * 16)
        idle = Array(repeating: [], count: self.largestLength / 16)
    }

    deinit {
        // The process's pool lives as long as the process; a pool of its own (tests)
        // gives its regions back to libsodium, which checks each canary again.
        for region in idle.joined() { sodium_free(region.base) }
    }

    /// Learns libsodium's canary from `base`, a region `sodium_malloc` has just returned
    /// (nothing can have written below it yet).
    func learnCanary(below base: UnsafeMutableRawPointer) {
        lock.withLock {
            guard canary == nil else { return }
            canary = Array(UnsafeRawBufferPointer(start: base - Self.canaryLength, count: Self.canaryLength))
        }
    }

    /// A wiped region of exactly `length` bytes, or `nil` when the pool has none.
    func take(length: Int) -> (base: UnsafeMutableRawPointer, isLocked: Bool)? {
        guard let bucket = bucket(length) else { return nil }
        return lock.withLock {
            guard let region = idle[bucket].popLast() else { return nil }
            pooled -= 1
            return region
        }
    }

    /// Wipes the guarded region of `length` bytes at `base` and keeps it; returns `false`
    /// when the pool does not keep it (full, a length it does not pool, or a canary that
    /// is not libsodium's), and the caller then releases it with `sodium_free`.
    func keep(_ base: UnsafeMutableRawPointer, length: Int, isLocked: Bool) -> Bool {
        guard let bucket = bucket(length) else { return false }
        sodium_memzero(base, length)
        return lock.withLock {
            guard pooled < capacity, let canary, hasIntactCanary(base, canary) else { return false }
            idle[bucket].append((base, isLocked))
            pooled += 1
            return true
        }
    }

    /// The number of regions kept (tests).
    var count: Int { lock.withLock { pooled } }

    private func hasIntactCanary(_ base: UnsafeMutableRawPointer, _ canary: [UInt8]) -> Bool {
        canary.withUnsafeBytes { expected in
            sodium_memcmp(base - Self.canaryLength, expected.baseAddress!, Self.canaryLength) == 0
        }
    }

    private func bucket(_ length: Int) -> Int? {
        guard length > 0, length <= largestLength, length % 16 == 0 else { return nil }
        return length / 16 - 1
    }
}
