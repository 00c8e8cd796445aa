extension MedicationSchedule {
    /// This value as a repository stores it, after the checks of
    /// ``MedicationValidation/validate(_:)-(MedicationSchedule)``.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` naming the first offending field.
    public func validated() throws -> MedicationSchedule {
        try MedicationValidation.validate(self)
        return self
    }
}
