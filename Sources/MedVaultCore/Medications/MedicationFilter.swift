/// Which of a patient's medications a list returns.
public enum MedicationFilter: String, Sendable, Hashable, Codable, CaseIterable {
    /// Only medications whose ``Medication/isActive`` is `true` (the default).
    case active
    /// Only deactivated medications.
    case inactive
    /// Every medication.
    case all

    /// Whether `medication` passes this filter.
    public func includes(_ medication: Medication) -> Bool {
        switch self {
        case .active: medication.isActive
        case .inactive: !medication.isActive
        case .all: true
        }
    }
}
