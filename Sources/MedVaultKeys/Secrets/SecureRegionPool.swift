import CSodium
import Foundation

/// Guarded regions (`sodium_malloc`) that held a secret, wiped, kept for the next secret
/// of the same length instead of being unmapped.
///
/// A guarded allocation costs an `mmap`, three `mprotect`s, two `mlock`s and two
/// `madvise`s, and its release an `munlock`, an `mprotect` and an `munmap`: about 23 µs a
/// secret on this project's 2-core machine (`make bench`, W2), where wiping and reusing a
/// region costs well under one. A vault's open allocates a dozen short-lived secrets
/// (the platform secret, key-encryption keys, the vault and database keys, the audit and
/// signing keys), so the pool takes about a quarter of a millisecond off every open
/// (docs/benchmarks-method.md, "The open's guarded allocations").
///
/// What stays as libsodium gives it: each region is still a `sodium_malloc` of exactly
/// the length asked for, on pages no other secret shares, between guard pages, locked in
/// RAM and left out of core dumps. A region is wiped (`sodium_memzero`) the moment its
/// secret is released, before it enters the pool, so a pooled region holds zeros only;
/// a region taken from the pool is handed out zero-filled. What changes: `sodium_free`'s
/// canary check (an underflow written below the region) runs when a region leaves the
/// pool for good, not at every release; MedVault writes into a region only through
/// bounds-checked buffers and length-taking libsodium calls.
///
/// The pool is bounded: at most ``capacity`` regions of at most ``largestLength`` bytes
/// each (the rest are unmapped at once), so it keeps at most a few dozen locked pages.
final class SecureRegionPool: @unchecked Sendable {
    // Safety of @unchecked Sendable: `free` and `pooled` are read and changed only under
    // `lock`; the regions they point to are owned by the pool while listed there.
    private let lock = NSLock()
    /// Free regions by length ÷ 16 − 1 (lengths are multiples of 16), each with whether
    /// its pages are locked; the last released is taken first.
    private var free: [[(base: UnsafeMutableRawPointer, isLocked: Bool)]]
    private var pooled = 0

    /// The most regions the pool keeps at a time.
    let capacity: Int
    /// The longest region the pool keeps, a multiple of 16.
    let largestLength: Int

    /// The process's pool: 32 regions of up to 256 bytes (every key MedVault holds).
    static let shared = SecureRegionPool(capacity: 32, largestLength: 256)

    init(capacity: Int, largestLength: Int) {
        self.capacity = max(0, capacity)
        self.largestLength = max(16, largestLength / 16 * 16)
        free = Array(repeating: [], count: self.largestLength / 16)
    }

    deinit {
        // The process's pool lives as long as the process; a pool of its own (tests)
        // gives its regions back to libsodium, which checks each canary.
        for region in free.joined() { sodium_free(region.base) }
    }

    /// A wiped region of exactly `length` bytes, or `nil` when the pool has none.
    func take(length: Int) -> (base: UnsafeMutableRawPointer, isLocked: Bool)? {
        guard let bucket = bucket(length) else { return nil }
        return lock.withLock {
            guard let region = free[bucket].popLast() else { return nil }
            pooled -= 1
            return region
        }
    }

    /// Wipes the region of `length` bytes at `base` and keeps it, or returns `false`
    /// (the region wiped all the same) when the pool is full or the length is not pooled:
    /// the caller then releases it with `sodium_free`.
    func keep(_ base: UnsafeMutableRawPointer, length: Int, isLocked: Bool) -> Bool {
        sodium_memzero(base, length)
        guard let bucket = bucket(length) else { return false }
        return lock.withLock {
            guard pooled < capacity else { return false }
            free[bucket].append((base, isLocked))
            pooled += 1
            return true
        }
    }

    /// The number of regions kept (tests).
    var count: Int { lock.withLock { pooled } }

    private func bucket(_ length: Int) -> Int? {
        guard length > 0, length <= largestLength, length % 16 == 0 else { return nil }
        return length / 16 - 1
    }
}
