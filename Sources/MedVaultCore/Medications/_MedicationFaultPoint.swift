/// A point inside a store write where a test can make the write fail, to check
/// that the transaction leaves nothing behind. `package` access: this package's tests
/// use it; an app that links the library cannot.
package enum _MedicationFaultPoint: Sendable, Hashable {
    /// After a dose log is written and before the inventory is decremented.
    case afterDoseLogWrite
}
