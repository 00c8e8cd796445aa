import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The upgrade of a real vault written by the library before migration 6 (strength,
/// dose-log amounts, corrections, refills): `Tests/Vectors/medication-fixture-v5/`,
/// written by `CrashProbe medication-fixture` at schema 5, and beside it what that
/// library read back (`medication-fixture-v5.json`).
@Suite("Medications: a schema-5 vault upgraded to strength, corrections and refills")
struct MedicationFixtureMigrationTests {
    static let vectors = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    /// What the schema-5 library read, decoded by this one (the new optional fields absent).
    struct Expectation: Decodable {
        struct Week: Decodable {
            var first: String
            var last: String
            var patient: AdherenceStats
            var byMedication: [String: AdherenceStats]
        }

        var patientID: UUID
        var now: Date
        var timeZone: String
        var medications: [Medication]
        var schedules: [MedicationSchedule]
        var logs: [DoseLog]
        var weeks: [Week]
    }

    /// Copies the fixture (opening migrates it: the committed files stay at schema 5) and opens the copy.
    func openCopy(in dir: TemporaryDirectory, now: Date) async throws -> Vault {
        let folder = dir.file("vault")
        let manager = FileManager.default
        try manager.copyItem(at: Self.vectors.appendingPathComponent("medication-fixture-v5"), to: folder)
        // Git keeps 0644: give the copy the modes a vault folder has (`verify` checks them).
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        for name in try manager.contentsOfDirectory(atPath: folder.path) {
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent(name).path)
        }
        return try await Vault.open(at: folder, password: try Password("probe"),
                                    options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0), clock: .fixed(now)))
    }

    @Test("Every medication, schedule and dose log survives the upgrade, and past weeks' adherence is unchanged")
    func upgradeKeepsRecordsAndAdherence() async throws {
        let expected = try JSONDecoder().decode(
            Expectation.self, from: Data(contentsOf: Self.vectors.appendingPathComponent("medication-fixture-v5.json")))
        let zone = try #require(TimeZone(identifier: expected.timeZone))
        try await withTemporaryDirectory { dir in
            let vault = try await openCopy(in: dir, now: expected.now)
            let state = try await vault.database.read { db in
                try db.fetchOne("PRAGMA user_version") { $0.int64(at: 0) }
            }
            #expect(state == Int64(MedVaultSchema.migrator.latestVersion))

            let medications = try await vault.medications.list(patientID: expected.patientID, filter: .all)
            #expect(medications == expected.medications)
            #expect(medications.count == 5 && medications.allSatisfy { $0.strength == nil })
            // Migration "medication stock ledger": each stock is now the ledger's (one seeded
            // adjustment + refills − taken doses), equal to what schema 5 stored.
            #expect(medications.contains { $0.inventory != nil })
            for medication in medications {
                guard let inventory = medication.inventory else { continue }
                let balance = try await vault.database.read { db in try MedicationStockStore.balance(of: medication, db) }
                #expect(MedicationStockLedger.stock(balance: balance) == inventory.current)
            }
            #expect(try await vault.medications.schedules.list(patientID: expected.patientID) == expected.schedules)

            let first = try CalendarDate(iso8601: expected.weeks[0].first)
            let last = try CalendarDate(iso8601: expected.weeks[expected.weeks.count - 1].last)
            let logs = try await vault.medications.doseLogs.list(
                patientID: expected.patientID, in: LocalTime.interval(from: first, through: last, in: zone))
            #expect(logs.count == expected.logs.count && logs.count > 100)
            // The logs are the old ones; taken and late ones now record the amount the old
            // library subtracted (the medication's dosage amount), the others none.
            let dosage = Dictionary(uniqueKeysWithValues: medications.map { ($0.id, $0.dosage.amount) })
            for (log, old) in zip(logs, expected.logs) {
                var withoutAmount = log
                withoutAmount.amount = nil
                #expect(withoutAmount == old)
                #expect(log.amount == (log.consumesDose ? dosage[log.medicationID] : nil))
            }

            // The old library had no streak: the fixture's stats decode with 0, and every
            // other count must be the same.
            func withoutStreak(_ stats: AdherenceStats) -> AdherenceStats {
                var stats = stats
                stats.streakDays = 0
                return stats
            }
            for week in expected.weeks {
                let from = try CalendarDate(iso8601: week.first), through = try CalendarDate(iso8601: week.last)
                #expect(withoutStreak(try await vault.medications.adherence(
                    forPatient: expected.patientID, from: from, through: through, in: zone)) == week.patient)
                for (id, stats) in week.byMedication {
                    let medicationID = try #require(UUID(uuidString: id))
                    #expect(withoutStreak(try await vault.medications.adherence(
                        forMedication: medicationID, from: from, through: through, in: zone)) == stats)
                }
            }
            #expect(try await vault.verify().problemsBesidesTestKDF == [])
            await vault.lock()
        }
    }

    @Test("A log written before the upgrade can be voided: it gives back what the old library subtracted")
    func oldLogsCanBeCorrected() async throws {
        let expected = try JSONDecoder().decode(
            Expectation.self, from: Data(contentsOf: Self.vectors.appendingPathComponent("medication-fixture-v5.json")))
        try await withTemporaryDirectory { dir in
            let vault = try await openCopy(in: dir, now: expected.now)
            let metformin = try #require(expected.medications.first { $0.name == "Metformina" })
            let taken = try #require(expected.logs.first { $0.medicationID == metformin.id && $0.consumesDose })
            let before = try await vault.medications.get(metformin.id)
            let receipt = try await vault.medications.doseLogs.void(taken.id, reason: nil, expectedVersion: taken.version)
            // The old model counted this stock in the dosage unit (mg): 850 comes back.
            #expect(receipt.medication.inventory?.current == (before.inventory?.current ?? .zero) + 850)
            #expect(try await vault.medications.doseLogs.history(of: taken.id).first?.previous.amount == 850)
            await vault.lock()
        }
    }
}
