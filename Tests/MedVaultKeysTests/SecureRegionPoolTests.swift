import Dispatch
import Foundation
import Testing
@testable import MedVaultKeys

/// The pool of released guarded regions (`SecureRegionPool`), each test on a pool of its
/// own: the process's pool is shared with every other test running meanwhile.
@Suite("Secure region pool")
struct SecureRegionPoolTests {
    @Test("a released secret's region is zero while pooled and is handed out again zero-filled")
    func wipedBeforePooled() throws {
        let pool = SecureRegionPool(capacity: 4, largestLength: 256)
        let region = SecureMemory.allocate(byteCount: 32, pool: pool)
        #expect(region.isGuarded)
        region.bytes.initializeMemory(as: UInt8.self, repeating: 0xA5)
        let base = try #require(region.bytes.baseAddress)
        SecureMemory.deallocate(region, pool: pool)
        #expect(pool.count == 1)
        // Still mapped: the pool holds it. What the secret was is gone.
        let left = Array(UnsafeRawBufferPointer(start: base, count: 32))
        #expect(left == [UInt8](repeating: 0, count: 32))

        let again = SecureMemory.allocate(byteCount: 32, pool: pool)
        #expect(again.bytes.baseAddress == base)
        #expect(again.bytes.count == 32)
        #expect(again.isGuarded)
        #expect(Array(again.bytes) == [UInt8](repeating: 0, count: 32))
        #expect(pool.count == 0)
        SecureMemory.deallocate(again, pool: pool)
    }

    @Test("a region is reused only for a secret of its own length")
    func lengthsKeptApart() {
        let pool = SecureRegionPool(capacity: 4, largestLength: 256)
        let short = SecureMemory.allocate(byteCount: 32, pool: pool)
        let shortBase = short.bytes.baseAddress
        SecureMemory.deallocate(short, pool: pool)
        let long = SecureMemory.allocate(byteCount: 64, pool: pool)
        #expect(long.bytes.baseAddress != shortBase)
        #expect(long.bytes.count == 64)
        #expect(pool.count == 1)
        SecureMemory.deallocate(long, pool: pool)
        #expect(pool.count == 2)
    }

    @Test("the pool keeps at most its capacity, and no region longer than its largest length")
    func bounded() {
        let pool = SecureRegionPool(capacity: 2, largestLength: 64)
        let regions = (0..<3).map { _ in SecureMemory.allocate(byteCount: 32, pool: pool) }
        for region in regions { SecureMemory.deallocate(region, pool: pool) }
        #expect(pool.count == 2)
        // Taken twice, then the pool is empty and a new region is mapped.
        let taken = (0..<3).map { _ in SecureMemory.allocate(byteCount: 32, pool: pool) }
        #expect(pool.count == 0)
        for region in taken { SecureMemory.deallocate(region, pool: pool) }

        // A pool with room to spare still does not keep a region longer than its largest.
        let roomy = SecureRegionPool(capacity: 8, largestLength: 64)
        let large = SecureMemory.allocate(byteCount: 128, pool: roomy)
        #expect(large.isGuarded)
        SecureMemory.deallocate(large, pool: roomy)
        #expect(roomy.count == 0)
        let fits = SecureMemory.allocate(byteCount: 64, pool: roomy)
        SecureMemory.deallocate(fits, pool: roomy)
        #expect(roomy.count == 1)
    }

    @Test("a region whose canary was overwritten is not kept")
    func overwrittenCanaryIsNotKept() throws {
        let pool = SecureRegionPool(capacity: 4, largestLength: 256)
        let region = SecureMemory.allocate(byteCount: 32, pool: pool)
        let base = try #require(region.bytes.baseAddress)
        let below = base - SecureRegionPool.canaryLength
        let saved = Array(UnsafeRawBufferPointer(start: below, count: SecureRegionPool.canaryLength))
        // An underflow one byte below the secret, as a buggy writer would leave.
        below.storeBytes(of: ~saved[15], toByteOffset: 15, as: UInt8.self)
        #expect(!pool.keep(base, length: 32, isLocked: region.isLocked))
        #expect(pool.count == 0)
        // Repaired, so that sodium_free (which would abort on it) can release it.
        below.storeBytes(of: saved[15], toByteOffset: 15, as: UInt8.self)
        SecureMemory.deallocate(region, pool: pool)
        #expect(pool.count == 1)
    }

    @Test("secrets from the pool still have pages of their own")
    func pagesStayApart() {
        let pool = SecureRegionPool(capacity: 8, largestLength: 256)
        for region in (0..<6).map({ _ in SecureMemory.allocate(byteCount: 32, pool: pool) }) {
            SecureMemory.deallocate(region, pool: pool)
        }
        let reused = (0..<6).map { _ in SecureMemory.allocate(byteCount: 32, pool: pool) }
        #expect(pool.count == 0)
        let pageSize = UInt(SecureMemory.pageSize)
        let pages = reused.map { UInt(bitPattern: $0.bytes.baseAddress) / pageSize }
        #expect(Set(pages).count == reused.count)
        for region in reused { SecureMemory.deallocate(region, pool: pool) }
    }

    @Test("threads taking and releasing at once never get the same region twice")
    func concurrentUse() {
        let pool = SecureRegionPool(capacity: 4, largestLength: 256)
        let failures = FailureCount()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<400 {
                let region = SecureMemory.allocate(byteCount: 32, pool: pool)
                if region.bytes.contains(where: { $0 != 0 }) { failures.add() }
                let mark = UInt8(truncatingIfNeeded: thread &* 31 &+ round) | 1
                region.bytes.initializeMemory(as: UInt8.self, repeating: mark)
                // Another thread holding the same region would overwrite the mark.
                for _ in 0..<20 where region.bytes.contains(where: { $0 != mark }) { failures.add() }
                SecureMemory.deallocate(region, pool: pool)
            }
        }
        #expect(failures.value == 0)
        #expect(pool.count <= 4)
    }
}

/// A counter shared by the threads of a test.
private final class FailureCount: @unchecked Sendable {
    // Safety of @unchecked Sendable: `count` is read and changed only under `lock`.
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
