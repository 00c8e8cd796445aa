/// A point inside a store write where a test can make the write fail, to check
/// that the transaction leaves nothing behind. Public but unstable (leading `_`):
/// for MedVault's own conformance tests.
public enum _MedicationFaultPoint: Sendable, Hashable {
    /// After a dose log is written and before the inventory is decremented.
    case afterDoseLogWrite
}
