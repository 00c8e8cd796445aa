extension DoseLog {
    /// This value as a repository stores it: checked by
    /// ``MedicationValidation/validate(_:)-(DoseLog)``, with ``scheduledAt`` and
    /// ``takenAt`` truncated to whole milliseconds.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` naming the first offending field.
    public func validated() throws -> DoseLog {
        try MedicationValidation.validate(self)
        var copy = self
        copy.scheduledAt = scheduledAt.truncatedToMilliseconds
        copy.takenAt = takenAt?.truncatedToMilliseconds
        return copy
    }
}
