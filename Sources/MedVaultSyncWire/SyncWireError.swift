import Foundation

/// A wire value that breaks the sync protocol's rules: a size out of range, a field
/// that must go with another, a certificate of the wrong device. The wire values'
/// initialisers and decoders throw it, so a server can validate requests without
/// linking MedVault's storage or key code.
///
/// ``field`` names the JSON field at fault and ``reason`` says what the rule is; neither
/// ever holds the value itself (a token, a key, a signature). The sync server answers it
/// with HTTP 400; MedVault's sync engine reports it to apps as a `MedVaultError` of code
/// `validation` on the same field, with the same reason. A custom `SyncTransport` that
/// decodes wire values itself must do the same (a transport's errors are
/// `MedVaultError`s).
///
/// For example:
///
/// ```swift
/// do {
///     _ = try SyncKeyringBlob(generation: -1, keyring: blob)
/// } catch let error as SyncWireError {
///     print(error.field)   // "generation"
/// }
/// ```
public struct SyncWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault, as the JSON names it (`"recordKey"`, `"origin"`…).
    public let field: String
    /// The rule it breaks, in fixed words: never the value.
    public let reason: String

    /// Creates an error on `field`.
    ///
    /// - Parameters:
    ///   - field: The JSON field at fault.
    ///   - reason: The rule it breaks; it must not quote the value.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `invalid <field>: <reason>`.
    public var description: String { "invalid \(field): \(reason)" }
}
