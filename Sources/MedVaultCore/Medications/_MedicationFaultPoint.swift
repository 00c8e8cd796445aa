/// A point inside a store write where a test can make the write fail, to check
/// that the transaction leaves nothing behind. Testing SPI, not public API: import
/// it with `@_spi(Testing) import MedVaultCore`.
@_spi(Testing)
public enum _MedicationFaultPoint: Sendable, Hashable {
    /// After a dose log is written and before the inventory is decremented.
    case afterDoseLogWrite
}
