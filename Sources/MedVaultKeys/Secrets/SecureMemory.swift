#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Page-aligned memory for secrets, in the manner of libsodium's `sodium_malloc`.
///
/// Every allocation gets pages of its own from `mmap`: they are `mlock`-ed (kept out of
/// swap) and, on Linux, marked `MADV_DONTDUMP` (kept out of core dumps). Because no two
/// secrets share a page, `munlock` when one secret is freed can never unlock the page of
/// another, still live, secret (with `malloc`, a 32-byte key and a long-lived vault key
/// may sit on the same page, and the kernel's page lock is not counted).
///
/// The cost is one page (4 KiB on most systems) per live secret, against a typical
/// `RLIMIT_MEMLOCK` of 8 MiB: MedVault holds a handful of secrets at a time. When `mlock`
/// is refused (limit reached, platform without it) the secret still lives on its own
/// pages and is still wiped; only the swap protection is lost, as with libsodium.
enum SecureMemory {
    /// Pages holding one secret.
    struct Region {
        /// The whole mapping: a multiple of the page size, at least `byteCount` bytes.
        let pages: UnsafeMutableRawBufferPointer
        /// Whether the pages are locked in RAM.
        let isLocked: Bool
        /// Whether the pages came from `mmap` (else from the heap, when `mmap` failed).
        let isMapped: Bool
    }

    /// The system's page size.
    static let pageSize: Int = {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        let size = Int(sysconf(Int32(_SC_PAGESIZE)))
        return size > 0 ? size : 4096
        #else
        return 4096
        #endif
    }()

    /// Zero-filled, page-aligned, locked pages for at least `byteCount` bytes.
    static func allocate(byteCount: Int) -> Region {
        let length = roundedUp(max(byteCount, 1))
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) {
            #if os(Linux)
            _ = madvise(mapped, length, MADV_DONTDUMP)
            #endif
            let locked = mlock(mapped, length) == 0
            // Anonymous mappings are zero-filled by the kernel.
            return Region(pages: UnsafeMutableRawBufferPointer(start: mapped, count: length),
                          isLocked: locked, isMapped: true)
        }
        #endif
        // mmap failed (address space exhausted): fall back to the heap, still wiped on free.
        let heap = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: pageSize)
        heap.initializeMemory(as: UInt8.self, repeating: 0)
        return Region(pages: heap, isLocked: false, isMapped: false)
    }

    /// Wipes the whole region, unlocks and releases it.
    static func deallocate(_ region: Region) {
        zero(region.pages)
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        if region.isMapped {
            if region.isLocked { munlock(region.pages.baseAddress, region.pages.count) }
            munmap(region.pages.baseAddress, region.pages.count)
            return
        }
        #endif
        region.pages.deallocate()
    }

    /// Runs `body` with a zero-filled scratch buffer of `byteCount` bytes that is wiped
    /// (``zero(_:)``) before this returns, for intermediate secrets that live for one
    /// call: HMAC pads, an HKDF pseudo-random key, a ChaCha20 state.
    ///
    /// The buffer is on the stack for small sizes (the standard library decides), like
    /// libsodium's own scratch state: it is not `mlock`-ed, but it never outlives the
    /// call and is zeroed in a way the optimiser may not remove, so no copy is left
    /// behind in memory. Locked pages of their own (``allocate(byteCount:)``) cost about
    /// six system calls each; they are kept for secrets that outlive a call.
    static func withScratch<Result>(
        byteCount: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(byteCount: max(byteCount, 1), alignment: 16) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            defer { zero(buffer) }
            return try body(buffer)
        }
    }

    /// Overwrites `buffer` with zeros in a way the optimiser may not remove.
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
        #elseif canImport(Glibc) || canImport(Musl)
        explicit_bzero(base, buffer.count)
        #else
        memset(base, 0, buffer.count)
        #endif
    }

    private static func roundedUp(_ byteCount: Int) -> Int {
        (byteCount + pageSize - 1) / pageSize * pageSize
    }
}
