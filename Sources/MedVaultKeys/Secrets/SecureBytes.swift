import MedVaultCore

/// A buffer for secret bytes: keys, passwords, recovery keys.
///
/// The bytes live in libsodium's guarded memory (`sodium_malloc`, see `SecureMemory`):
/// pages of their own between guard pages, `mlock`-ed where the operating system allows
/// (so they are not written to swap), excluded from core dumps on Linux, never shared with
/// another secret (so unlocking one never unlocks another), and overwritten with zeros
/// when the buffer is ``wipe()``d or deinitialised. The bytes
/// are reachable only through ``withUnsafeBytes(_:)``; `SecureBytes` has no `description`
/// that shows them and compares in constant time.
///
/// For example:
///
/// ```swift
/// let key = SecureBytes.random(count: 32)
/// try key.withUnsafeBytes { bytes in
///     // hand `bytes` to a C API; do not copy them into a String or Array
/// }
/// ```
///
/// ## Using a wiped buffer throws
///
/// After ``wipe()``, ``withUnsafeBytes(_:)`` throws `MedVaultError.Code.locked` instead of
/// handing out zeros. A wiped key that silently read as 32 zero bytes once let a key
/// operation racing `Vault.lock()` seal the vault key under an all-zero key; a throw turns
/// that race into the same `locked` error the caller gets a moment later anyway. Throwing
/// rather than trapping keeps a lock-during-operation race an ordinary, recoverable error
/// in an app (a trap would kill the app for a user tapping "lock" at the wrong moment).
///
/// `SecureBytes` is a reference type so that copies never multiply the secret in
/// memory. It is `Sendable` because its storage is written only while it is being
/// built (before it is shared), and afterwards only by ``wipe()``, which takes the
/// lock that every reader takes too.
public final class SecureBytes: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    // Safety of @unchecked Sendable: `region` and `count` never change after init;
    // `isWiped` and the bytes are read and written only while holding `lock`, so a
    // reader never sees a half-wiped buffer and a wipe never races a read.
    private let region: SecureMemory.Region
    private let lock = SecureBytesLock()
    private var isWiped = false

    /// The number of secret bytes.
    public let count: Int

    /// Creates a zero-filled buffer of `count` bytes and lets `initializer` fill it.
    ///
    /// - Parameters:
    ///   - count: The number of bytes.
    ///   - initializer: Writes the secret into the buffer.
    /// - Throws: What `initializer` throws; the buffer is then wiped and released.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let region = SecureMemory.allocate(byteCount: count)
        do {
            try initializer(UnsafeMutableRawBufferPointer(rebasing: region.bytes[0..<count]))
        } catch {
            SecureMemory.deallocate(region)
            throw error
        }
        self.region = region
        self.count = count
    }

    /// Copies `bytes` straight into a new secure buffer, with no intermediate copy.
    /// Wipe the source yourself if you own it.
    ///
    /// - Parameter bytes: The secret; an `Array`, `Data`, a buffer pointer or a slice.
    public convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count) { buffer in
            var index = 0
            for byte in bytes where index < buffer.count {
                buffer[index] = byte
                index += 1
            }
        }
    }

    /// `parts` one after the other, copied straight into a new secure buffer.
    package convenience init(concatenating parts: [UnsafeRawBufferPointer]) {
        // memmove carries the bytes in vector registers.
        defer { SecureMemory.scrubAfterSecretUse() }
        self.init(count: parts.reduce(0) { $0 + $1.count }) { buffer in
            var offset = 0
            for part in parts where part.count > 0 {
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + part.count)]).copyMemory(from: part)
                offset += part.count
            }
        }
    }

    /// `count` bytes from the system's cryptographically secure random number generator
    /// (libsodium's `randombytes_buf`).
    public static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { SecureRandom.fill($0) }
    }

    /// A new buffer holding the same bytes, copied page to page.
    ///
    /// - Throws: `MedVaultError.Code.locked` when this buffer was wiped.
    public func copy() throws -> SecureBytes {
        // memmove carries the bytes in vector registers.
        defer { SecureMemory.scrubAfterSecretUse() }
        return try withUnsafeBytes { source in
            SecureBytes(count: source.count) { target in target.copyMemory(from: source) }
        }
    }

    deinit {
        SecureMemory.deallocate(region)
    }

    /// Calls `body` with the secret bytes. Do not let the pointer escape.
    ///
    /// - Throws: `MedVaultError.Code.locked` when the buffer was wiped (never zeros, see
    ///   the type's discussion), or what `body` throws.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try lock.withLock {
            guard !isWiped else { throw Self.wipedError }
            return try body(UnsafeRawBufferPointer(rebasing: region.bytes[0..<count]))
        }
    }

    /// Calls `body` with the bytes to write, for a buffer this module just made and has not
    /// shared or wiped yet (scratch space, an AEAD's output). Traps if it was wiped: that is a
    /// MedVault bug, not a race with `lock()`, since nobody else holds the buffer.
    func withFreshMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try lock.withLock {
            precondition(!isWiped, "SecureBytes: a fresh buffer was wiped before use")
            return try body(UnsafeMutableRawBufferPointer(rebasing: region.bytes[0..<count]))
        }
    }

    /// Overwrites the secret with zeros now, instead of waiting for deinit. Later reads throw.
    public func wipe() {
        lock.withLock {
            SecureMemory.zero(region.bytes)
            isWiped = true
        }
    }

    /// Whether ``wipe()`` was called.
    public var wasWiped: Bool { lock.withLock { isWiped } }

    /// Compares two secrets in time that depends only on their lengths.
    ///
    /// A wiped buffer equals only itself. The two locks are taken in the order of the
    /// buffers' addresses, whatever the argument order, so `a == b` racing `b == a`
    /// cannot deadlock.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        if lhs === rhs { return true }
        let (first, second) = ObjectIdentifier(lhs) < ObjectIdentifier(rhs) ? (lhs, rhs) : (rhs, lhs)
        return first.lock.withLock {
            second.lock.withLock {
                guard !first.isWiped, !second.isWiped, first.count == second.count else { return false }
                return SecureMemory.constantTimeEqual(UnsafeRawBufferPointer(rebasing: first.region.bytes[0..<first.count]),
                                                      UnsafeRawBufferPointer(rebasing: second.region.bytes[0..<second.count]))
            }
        }
    }

    /// Whether these bytes equal `bytes`, in time that depends only on the lengths; `false`
    /// once wiped. For comparing with bytes that are not held in a buffer of this type (a
    /// database row's) without copying them.
    package func constantTimeEquals(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.withLock {
            guard !isWiped, count == bytes.count else { return false }
            return SecureMemory.constantTimeEqual(UnsafeRawBufferPointer(rebasing: region.bytes[0..<count]), bytes)
        }
    }

    /// Never shows the bytes.
    public var description: String { "SecureBytes(\(count) bytes, redacted)" }
    /// Never shows the bytes.
    public var debugDescription: String { description }

    /// The error a wiped buffer throws when read.
    static let wipedError = MedVaultError(.locked, reason: "the key was wiped: the vault was locked")

    // MARK: - For tests

    /// The pages the buffer's bytes lie on (tests check that no two secrets share one).
    var pageRange: Range<UInt> {
        let page = UInt(SecureMemory.pageSize)
        let base = UInt(bitPattern: region.bytes.baseAddress)
        let end = base + UInt(region.bytes.count)
        return (base / page * page)..<((end + page - 1) / page * page)
    }

    /// Whether the bytes are libsodium's guarded allocation (tests).
    var isGuarded: Bool { region.isGuarded }

    /// Whether the buffer's pages are locked in RAM.
    var isMemoryLocked: Bool { region.isLocked }
}
