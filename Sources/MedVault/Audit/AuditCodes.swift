import Foundation
import MedVaultCore

/// The integer codes `medvault_audit.action` stores for MedVault's actions.
///
/// Record actions share the change log's operation codes (1–6); events start at 16.
/// An app's own operation is stored by name (never all digits). Part of the file format
/// and of the MAC's canonical bytes: frozen.
enum AuditCodes {
    static let actions: [AuditAction: Int64] = [
        .create: 1, .update: 2, .deactivate: 3, .reactivate: 4, .cancel: 5, .delete: 6,
        .export: 16, .fhirExport: 17, .backup: 18, .restore: 19, .importRecords: 20,
        .unlock: 21, .unlockFailed: 22, .passwordChange: 23, .recoveryKeyRegeneration: 24,
        .slotChange: 25, .databaseKeyRotation: 26, .sync: 27,
    ]
    private static let names = Dictionary(uniqueKeysWithValues: actions.map { ($0.value, $0.key) })

    /// The action recording a change-log operation.
    static func action(_ operation: ChangeOperation) -> AuditAction {
        operation == .insert ? .create : AuditAction(rawValue: operation.rawValue)
    }

    /// What the trail stores for `action`.
    static func stored(_ action: AuditAction) -> VaultValue {
        actions[action].map(VaultValue.integer) ?? .text(action.rawValue)
    }

    /// The action of a stored value, read as text (a code reads as its digits).
    static func action(_ stored: String) -> AuditAction {
        Int64(stored).flatMap { names[$0] } ?? AuditAction(rawValue: stored)
    }
}
