import Foundation
import MedVaultCore
import MedVaultKeys

/// The SQL that reads `medvault_audit`: queries and verification.
enum AuditTrailReader {
    static let maximumLimit = 100_000

    /// Entries matching the filters, oldest first.
    static func entries(patient: UUID?, from: Date?, to: Date?, actions: Set<AuditAction>?, limit: Int,
                        after: Int64?, _ db: DatabaseConnection) throws -> [AuditEntry] {
        var conditions: [String] = ["a.seq > ?1"]
        var arguments: [VaultValue] = [.integer(after ?? 0)]
        func parameter(_ value: VaultValue) -> String {
            arguments.append(value)
            return "?\(arguments.count)"
        }
        if let from { conditions.append("a.time >= \(parameter(from.vaultValue))") }
        if let to { conditions.append("a.time < \(parameter(to.vaultValue))") }
        if let actions {
            if actions.isEmpty { return [] }
            let list = actions.sorted { $0.rawValue < $1.rawValue }.map { parameter(AuditCodes.stored($0)) }
            conditions.append("a.action IN (\(list.joined(separator: ", ")))")
        }
        if let patient {
            let id = parameter(patient.vaultValue)
            // The ids of every record of the patient, resolved now by joins.
            conditions.append("a.entity_id IN (\(RecordTableRegistry.patientEntitiesSQL(id)))")
        }
        let limitParameter = parameter(.integer(Int64(limit)))
        let sql = """
            SELECT a.seq, a.time, d.device_id, a.actor, a.action, a.entity_table, a.entity_id, a.origin
            FROM medvault_audit a LEFT JOIN medvault_device d ON d.id = a.device
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY a.seq LIMIT \(limitParameter)
            """
        return try db.fetchAll(sql, arguments) { row in
            AuditEntry(
                sequence: row.int64(at: 0), time: Date(millisecondsSince1970: row.int64(at: 1)),
                deviceID: row.isNull(at: 2) ? nil : try UUID(row: row, column: 2),
                actor: row.isNull(at: 3) ? nil : try UUID(row: row, column: 3),
                action: AuditCodes.action(row.text(at: 4)),
                table: row.isNull(at: 5) ? nil : ChangeLogCodes.table(row.text(at: 5)),
                entityID: row.isNull(at: 6) ? nil : try UUID(row: row, column: 6),
                syncedFrom: row.isNull(at: 7) ? nil : try UUID(row: row, column: 7))
        }
    }

    /// Throws `corrupted` when the trail's table is gone: only someone holding the
    /// database key can drop it, and every write the vault makes records into it
    /// (without this check, each failed with SQLite's "no such table").
    static func requireTable(_ db: DatabaseConnection) throws {
        let present = try db.fetchOne(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'medvault_audit'"
        ) { row in row.int64(at: 0) } ?? 0
        guard present == 1 else {
            throw MedVaultError(.corrupted, reason: """
                the audit trail's table was removed from the database: the vault was tampered with by \
                someone holding its database key; restore a backup
                """)
        }
    }

    /// The committed head `(seq, mac)`; `nil` for an empty trail.
    static func head(_ db: DatabaseConnection) throws -> (sequence: Int64, mac: [UInt8])? {
        try db.fetchOne("SELECT seq, mac FROM medvault_audit ORDER BY seq DESC LIMIT 1") { row in
            (row.int64(at: 0), [UInt8](row.blob(at: 1)))
        }
    }

    static let selectForVerify = """
        SELECT seq, time, device, actor, action, entity_table, entity_id, mac, origin FROM medvault_audit \
        WHERE seq > ? ORDER BY seq
        """

    static func columns(_ row: VaultRow) -> (AuditChain.Columns, mac: [UInt8]) {
        let columns = AuditChain.Columns(
            seq: row.int64(at: 0), time: AuditChain.storedValue(row, 1), device: AuditChain.storedValue(row, 2),
            actor: AuditChain.storedValue(row, 3), action: AuditChain.storedValue(row, 4),
            table: AuditChain.storedValue(row, 5), entityID: AuditChain.storedValue(row, 6),
            origin: AuditChain.storedValue(row, 8))
        let mac: [UInt8] = row.isNull(at: 7) ? [] : [UInt8](row.blob(at: 7))
        return (columns, mac)
    }
}
