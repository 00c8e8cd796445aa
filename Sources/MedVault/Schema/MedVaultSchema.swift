/// The schema of a MedVault database: every migration, in order.
///
/// Until the first release, migrations may still be edited in place; from then on,
/// a released migration is never changed and each change is a new one.
public enum MedVaultSchema {
    /// The migrator every `Vault` opens its database with.
    public static let migrator = SchemaMigrator([
        .init(version: 1, name: "clinical records", apply: ClinicalSchema.create),
        .init(version: 2, name: "medications", apply: MedicationSchema.create),
        .init(version: 3, name: "ordered patient search index", apply: PatientSearchSchema.create),
    ])
}
