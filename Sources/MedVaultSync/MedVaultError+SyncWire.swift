import MedVaultCore
import MedVaultSyncWire

extension MedVaultError {
    /// The engine's error for a wire value that breaks the protocol's rules: a
    /// `validation` error on the same field, with the same fixed reason.
    init(_ error: SyncWireError) {
        self.init(.validation, field: error.field, reason: error.reason)
    }

    /// Builds a wire value with `make`, reporting its ``SyncWireError`` as a
    /// `MedVaultError` (``init(_:)``): MedVaultSync's API throws only `MedVaultError`.
    ///
    /// The engine builds wire values from its own state, so their checks hold unless
    /// that state is damaged (a stored envelope row, say); this keeps even that case
    /// inside the documented error type.
    static func fromWire<Value>(_ make: () throws -> Value) throws -> Value {
        do {
            return try make()
        } catch let error as SyncWireError {
            throw MedVaultError(error)
        }
    }
}
