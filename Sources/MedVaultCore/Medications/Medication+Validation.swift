extension Medication {
    /// This value as a repository stores it, after the checks of
    /// ``MedicationValidation/validate(_:)-(Medication)``.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` naming the first offending field.
    public func validated() throws -> Medication {
        try MedicationValidation.validate(self)
        return self
    }
}
