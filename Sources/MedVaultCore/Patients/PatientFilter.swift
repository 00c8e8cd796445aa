/// Which patients a list, count or search covers.
///
/// Patients are never deleted: deactivation sets ``Patient/deletedAt``. Lists default
/// to ``active``.
public enum PatientFilter: String, Sendable, Hashable, Codable, CaseIterable {
    /// Patients whose `deletedAt` is `nil`.
    case active
    /// Deactivated patients (`deletedAt` set).
    case inactive
    /// Every patient.
    case all

    /// Whether `patient` passes this filter.
    public func includes(_ patient: Patient) -> Bool {
        switch self {
        case .active: patient.deletedAt == nil
        case .inactive: patient.deletedAt != nil
        case .all: true
        }
    }
}
