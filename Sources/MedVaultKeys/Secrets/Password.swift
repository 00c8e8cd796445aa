import Foundation
import MedVaultCore
import MedVaultJSONShape

/// A vault password, held as Unicode-NFC-normalised UTF-8 bytes in a ``SecureBytes``.
///
/// Normalisation makes "José" typed with a precomposed `é` (U+00E9, common on macOS and
/// iOS keyboards) and with `e` + combining acute (U+0065 U+0301, produced by some Linux
/// input methods and by copy-paste from decomposed text) the same password. MedVault uses
/// **NFC**, as RFC 8265 (PRECIS OpaqueString) does for passwords: it only merges canonically
/// equivalent spellings, whereas NFKD/NFKC would also fold compatibility characters
/// (`ﬁ` → `fi`, `²` → `2`, full-width letters) and so silently shrink the password space.
///
/// For example:
///
/// ```swift
/// let password = try Password("José 1234")
/// let fromBytes = try Password(bytes: Array("José 1234".utf8))   // same bytes after NFC
/// ```
///
/// A `String` cannot be wiped from memory: prefer the byte initialisers when the password
/// already arrives as bytes, and drop your `String` quickly. The normalised bytes MedVault
/// keeps are zeroed when the last copy of the `Password` goes away.
///
/// Text whose every character is below U+0300 — ASCII, and the Latin letters of Spanish,
/// Portuguese, French, German… with their accents precomposed — is already NFC, so it is
/// copied straight into secure memory: no normalised copy is made anywhere else. Text with
/// combining marks or other scripts is normalised by Foundation, whose normalised string
/// and intermediate buffers MedVault cannot wipe.
public struct Password: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The normalised UTF-8 (or raw, see ``init(bytes:)-([UInt8])``) bytes.
    let bytes: SecureBytes

    /// Creates a password from text, normalised to NFC.
    ///
    /// - Parameter string: The password as typed.
    /// - Throws: `MedVaultError.Code.validation` with field `"password"` when empty.
    public init(_ string: String) throws {
        guard !string.isEmpty else { throw MedVaultError.validation("password", "must not be empty") }
        if Self.isNFCWithoutNormalising(string.utf8) {
            self.bytes = string.utf8.withContiguousStorageIfAvailable { SecureBytes(copying: $0) }
                ?? SecureBytes(copying: string.utf8)
        } else {
            self.bytes = Self.normalisedBytes(string)
        }
    }

    /// Creates a password from bytes.
    ///
    /// Bytes that are valid UTF-8 are decoded and normalised to NFC like a `String` would be,
    /// so a password read from a file or a terminal in either normal form unlocks the same
    /// vault. Bytes that are not valid UTF-8 are used as they are.
    ///
    /// - Parameter bytes: The password bytes; wipe your own copy afterwards.
    /// - Throws: `MedVaultError.Code.validation` with field `"password"` when empty.
    public init(bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw MedVaultError.validation("password", "must not be empty") }
        if Self.isNFCWithoutNormalising(bytes) {
            self.bytes = SecureBytes(copying: bytes)
        } else if let text = strictUTF8(bytes) {
            self.bytes = Self.normalisedBytes(text)
        } else {
            self.bytes = SecureBytes(copying: bytes)
        }
    }

    /// Creates a password from secure bytes; see ``init(bytes:)-([UInt8])`` for normalisation.
    ///
    /// - Throws: `MedVaultError.Code.validation` with field `"password"` when empty.
    public init(bytes: SecureBytes) throws {
        guard bytes.count > 0 else { throw MedVaultError.validation("password", "must not be empty") }
        if try bytes.withUnsafeBytes({ Self.isNFCWithoutNormalising($0) }) {
            self.bytes = try bytes.copy()
            return
        }
        let text: String? = try bytes.withUnsafeBytes { raw in
            strictUTF8(raw)
        }
        if let text {
            self.bytes = Self.normalisedBytes(text)
        } else {
            self.bytes = try bytes.copy()
        }
    }

    /// The number of bytes after normalisation.
    public var byteCount: Int { bytes.count }

    /// Calls `body` with the normalised bytes. Do not let the pointer escape.
    ///
    /// - Throws: What `body` throws (a password's bytes are never wiped before it goes away).
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes(body)
    }

    /// Never shows the password.
    public var description: String { "Password(redacted)" }
    /// Never shows the password.
    public var debugDescription: String { description }

    /// Whether `utf8` is valid UTF-8 whose every scalar is below U+0300, decoded in place
    /// (no `String`, no copy). No scalar below U+0300 has a canonical decomposition that
    /// NFC would change, nor combines with a neighbour (the combining marks start at
    /// U+0300), so such text is its own NFC form.
    static func isNFCWithoutNormalising<Bytes: Collection>(_ utf8: Bytes) -> Bool where Bytes.Element == UInt8 {
        var decoder = UTF8()
        var iterator = utf8.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar.value >= 0x300 { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// NFC by Foundation, for text with combining marks or characters from U+0300 on.
    /// Foundation's normalised string and its intermediate buffers are ordinary memory
    /// MedVault cannot wipe (the string may even share the caller's storage); only the
    /// copy kept here is secure.
    private static func normalisedBytes(_ text: String) -> SecureBytes {
        let utf8 = text.precomposedStringWithCanonicalMapping.utf8
        return utf8.withContiguousStorageIfAvailable { SecureBytes(copying: $0) } ?? SecureBytes(copying: utf8)
    }
}
