/// Medications and dose logs kept together, so that logging a dose can change the
/// inventory in the same transaction, plus the clock the store reads "now" from.
///
/// The day-plan, adherence and inventory queries (``doses(forPatient:on:in:graceWindow:)``,
/// ``adherence(forPatient:from:through:in:graceWindow:)``, ``lowInventory(forPatient:)``,
/// ``expiring(forPatient:withinDays:in:)``…) are written once, in an extension, on
/// top of the repository requirements and the pure ``DoseExpansion``,
/// ``DoseResolution`` and ``AdherenceCalculator``: every implementation answers them
/// identically.
///
/// Implementations: ``InMemoryMedicationStore`` (for tests and previews) and the
/// SQLCipher store in the `MedVault` module.
public protocol MedicationStore: MedicationRepository, DoseLogRepository {
    /// The clock that stamps records and decides which doses are already missed.
    var clock: RecordClock { get }
}
