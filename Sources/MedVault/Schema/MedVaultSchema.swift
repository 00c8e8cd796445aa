/// The schema of a MedVault database: every migration, in order.
///
/// The history is frozen: a released migration is never edited or renamed, and none
/// calls code that can change later (repository SQL, row mapping, search folding):
/// each carries its own copy of what it needs. Each change to the schema is a new
/// migration, appended here under a new name. The names are recorded in each database
/// (see ``SchemaMigrator``); `PRAGMA user_version` counts them.
public enum MedVaultSchema {
    /// MedVault's own migrations: the schema every `Vault` brings its database to.
    public static let migrator = SchemaMigrator([
        .init("clinical records", apply: ClinicalSchema.createClinicalRecords),
        .init("medications", apply: MedicationSchema.createMedicationPlan),
        .init("ordered patient search index", apply: PatientSearchSchema.orderPatientSearchIndex),
        .init("icd11 catalogue cache", apply: ICD11CacheSchema.createCache),
        .init("parent checks without statement journals", apply: InsertCheckSchema.dropInsertTriggers),
        .init("medication strength, dose corrections and refills",
              apply: MedicationStockSchema.addStrengthCorrectionsAndRefills),
        .init("medication schedule lifecycle and reminders", apply: ScheduleLifecycleSchema.addScheduleLifecycle),
        .init("session signatures and addenda", apply: SigningSchema.createSignatures),
        .init("change log", apply: ChangeLogSchema.createChangeLog),
        .init("sync state", apply: SyncStateSchema.createSyncState),
        .init("audit trail", apply: AuditSchema.createAuditTrail),
        .init("sync attachment staging", apply: SyncAttachmentStagingSchema.createStaging),
        .init("medication stock ledger", apply: MedicationStockLedgerSchema.createStockLedger),
        .init("sync refusals", apply: SyncRefusalSchema.createRefusals),
        .init("sync secret", apply: SyncSecretSchema.addSyncSecret),
        .init("professional signatures", apply: SigningSchema.addProfessionalSignatures),
        .init("sync device sequences", apply: SyncDeviceSequenceSchema.createDeviceSequences),
        .init("sync epochs", apply: SyncEpochSchema.createEpochs),
        .init("audit origin", apply: AuditSchema.addOrigin),
        .init("session note search", apply: SessionNoteSearchSchema.createNoteSearch),
        .init("dose journal", apply: DoseJournalStateSchema.createState),
        .init("sync seal plan", apply: SyncSealPlanSchema.createSealPlan),
        .init("shared diagnosis snapshots", apply: DiagnosisSnapshotSchema.shareSnapshots),
        .init("sync outbox without an id index", apply: SyncOutboxSchema.dropIDIndex),
    ])

    /// MedVault's migrations followed by an app's (see ``AppMigrations``): what a
    /// `Vault` opened with these options migrates its database with.
    public static func migrator(appending app: AppMigrations) -> SchemaMigrator {
        migrator.appending(app)
    }
}
