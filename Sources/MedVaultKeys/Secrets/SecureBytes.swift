#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffer for secret bytes: keys, passwords, recovery keys.
///
/// The bytes live in memory that MedVault allocates itself, is `mlock`-ed where the
/// operating system allows (so it is not written to swap), and is overwritten with
/// zeros when the buffer is ``wipe()``d or deinitialised. The bytes are reachable
/// only through ``withUnsafeBytes(_:)``; `SecureBytes` has no `description` that
/// shows them and compares in constant time.
///
/// For example:
///
/// ```swift
/// let key = SecureBytes.random(count: 32)
/// key.withUnsafeBytes { bytes in
///     // hand `bytes` to a C API; do not copy them into a String or Array
/// }
/// ```
///
/// `SecureBytes` is a reference type so that copies never multiply the secret in
/// memory. It is `Sendable` because its storage is written only while it is being
/// built (before it is shared), and afterwards only by ``wipe()``, which takes the
/// lock that every reader takes too.
public final class SecureBytes: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    // Safety of @unchecked Sendable: `storage` and `count` never change after init;
    // the bytes are read and wiped only while holding `lock`, so a reader never sees
    // a half-wiped buffer and a wipe never races a read.
    private let storage: UnsafeMutableRawBufferPointer
    private let lock = SecureBytesLock()
    private var isWiped = false
    private let isLocked: Bool

    /// The number of secret bytes.
    public let count: Int

    /// Creates a zero-filled buffer of `count` bytes and lets `initializer` fill it.
    ///
    /// - Parameters:
    ///   - count: The number of bytes.
    ///   - initializer: Writes the secret into the buffer.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let allocated = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        allocated.initializeMemory(as: UInt8.self, repeating: 0)
        self.storage = allocated
        self.count = count
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        self.isLocked = mlock(allocated.baseAddress, allocated.count) == 0
        #else
        self.isLocked = false
        #endif
        do {
            try initializer(UnsafeMutableRawBufferPointer(rebasing: allocated[0..<count]))
        } catch {
            Self.zero(allocated)
            throw error
        }
    }

    /// Copies `bytes` into a new secure buffer. Wipe the source yourself if you own it.
    public convenience init<Bytes: Sequence>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        let array = Array(bytes)
        self.init(count: array.count) { buffer in
            buffer.copyBytes(from: array)
        }
    }

    /// `count` bytes from the system's cryptographically secure random number generator.
    public static func random(count: Int) -> SecureBytes {
        var generator = SystemRandomNumberGenerator()
        return SecureBytes(count: count) { buffer in
            for index in buffer.indices {
                buffer[index] = generator.next()
            }
        }
    }

    deinit {
        Self.zero(storage)
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        if isLocked { munlock(storage.baseAddress, storage.count) }
        #endif
        storage.deallocate()
    }

    /// Calls `body` with the secret bytes. Do not let the pointer escape.
    ///
    /// After ``wipe()`` the bytes are all zero.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try lock.withLock {
            try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
        }
    }

    /// Overwrites the secret with zeros now, instead of waiting for deinit.
    public func wipe() {
        lock.withLock {
            Self.zero(storage)
            isWiped = true
        }
    }

    /// Whether ``wipe()`` was called.
    public var wasWiped: Bool { lock.withLock { isWiped } }

    /// Compares two secrets in time that depends only on their lengths.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        if lhs === rhs { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                guard left.count == right.count else { return false }
                var difference: UInt8 = 0
                for index in 0..<left.count {
                    difference |= left[index] ^ right[index]
                }
                return difference == 0
            }
        }
    }

    /// Never shows the bytes.
    public var description: String { "SecureBytes(\(count) bytes, redacted)" }
    /// Never shows the bytes.
    public var debugDescription: String { description }

    private static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        // explicit_bzero / memset_s are stores the optimiser may not remove.
        #if canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
        #elseif canImport(Glibc) || canImport(Musl)
        explicit_bzero(base, buffer.count)
        #else
        memset(base, 0, buffer.count)
        #endif
    }
}
