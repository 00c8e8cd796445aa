// `import MedVault` is all an app writes: the value modules come with it.
//
// `Vault`'s API is made of MedVaultCore's values and protocols (`Patient`,
// `CalendarDate`, `PatientRepository`, `MedVaultError`, the in-memory vault…) and
// MedVaultKeys' secrets (`Password`, `RecoveryKey`, `SecretStore`), so every caller
// of `Vault` needs both modules. Re-exporting them here means an app depends on the
// `MedVault` product alone, and the README's examples compile as written
// (Tests/Fixtures/ReadmeApp proves it). An app that wants only the pure-Swift values
// and in-memory doubles can still depend on the `MedVaultCore` product alone.
@_exported import MedVaultCore
@_exported import MedVaultKeys
