import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Helpers of the change-log and observation tests.
enum ChangeFixtures {
    /// A new vault in `directory` (password "probe", the fast test KDF, as CrashProbe opens it).
    static func makeVault(_ directory: TemporaryDirectory, name: String = "vault",
                          options: Vault.Options = VaultFixtures.options) async throws -> Vault {
        try await Vault.create(at: directory.url.appendingPathComponent(name), password: try Password("probe"),
                               options: options).vault
    }

    static func reopen(_ vault: Vault, options: Vault.Options = VaultFixtures.options) async throws -> Vault {
        await vault.lock()
        return try await Vault.open(at: vault.layout.folder, password: try Password("probe"), options: options)
    }

    /// Every entry of the log.
    /// Runs `CrashProbe <mode>` on a new vault, SIGKILLs it after it reported five
    /// commits (and a random 0–40 ms more), and reopens the vault.
    ///
    /// - Returns: The reopened vault and the lines the probe printed (one per commit).
    static func reopenedAfterKilledWriter(_ mode: String, in directory: TemporaryDirectory) async throws
        -> (vault: Vault, printed: [String])
    {
        let vault = try await makeVault(directory)
        let folder = vault.layout.folder
        await vault.lock()
        let child = try ProbeChild([mode, folder.path], outputURL: directory.file("probe.out"))
        #expect(try await child.waitForLines(5))
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
        child.sigkill()
        try await child.waitForExit()
        return (try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options),
                child.lines)
    }

    /// The ids stored in `table` (a record table with a 16-byte `id` column).
    static func ids(in table: String, of vault: Vault) async throws -> [UUID] {
        try await vault.database.read { db in
            try db.fetchAll("SELECT id FROM \(table)") { try UUID(row: $0, column: 0) }
        }
    }

    /// The ids of a medication's stock adjustments, in the order written.
    static func adjustmentIDs(of medicationID: UUID, in vault: Vault) async throws -> [UUID] {
        try await vault.database.read { db in
            try db.fetchAll("SELECT id FROM medication_stock_adjustment WHERE medication_id = ? ORDER BY rowid",
                            [medicationID.vaultValue]) { try UUID(row: $0, column: 0) }
        }
    }

    static func entries(_ vault: Vault) async throws -> [ChangeLogEntry] {
        try await vault.changes(after: nil, limit: 10_000).entries
    }

    /// The entries after `cursor`, and the cursor after them.
    static func entries(_ vault: Vault, after cursor: ChangeCursor) async throws -> ([ChangeLogEntry], ChangeCursor) {
        let page = try await vault.changes(after: cursor, limit: 10_000)
        return (page.entries, page.next)
    }

    /// What a test compares: table, record, operation, version.
    struct Summary: Hashable, CustomStringConvertible {
        let table: VaultTable
        let id: UUID
        let operation: ChangeOperation
        let version: Int64?
        var description: String { "\(table) \(operation) v\(version.map(String.init) ?? "-")" }
    }

    static func summaries(_ entries: [ChangeLogEntry]) -> [Summary] {
        entries.map { Summary(table: $0.table, id: $0.recordID, operation: $0.operation, version: $0.version) }
    }

    /// Creates `count` patients, one `create` call (one transaction, one entry) each.
    static func createPatients(_ vault: Vault, count: Int) async throws {
        for number in 0..<count {
            _ = try await vault.patients.create(try patient("Paciente", "Número \(number)"))
        }
    }

    /// A medication of `patientID`, with `stock` tablets in stock (none tracked when `nil`).
    static func medication(_ patientID: UUID, stock: Int?) throws -> Medication {
        Medication(patientID: patientID, name: "Ibuprofeno", dosage: Dosage(amount: 1, unit: .tablets),
                   frequency: .specificTimes([TimeOfDay(hour: 8)]), startDate: try CalendarDate(iso8601: "2026-01-01"),
                   inventory: stock.map { MedicationInventory(current: MedicationQuantity($0)) })
    }

    /// An instant of 2026-01-01, `hours` hours after 08:00 UTC.
    static func instant(_ hours: Int) -> Date {
        Date(timeIntervalSince1970: 1_767_254_400 + Double(hours) * 3_600)
    }

    static func patient(_ first: String = "Ana", _ last: String = "Ruiz") throws -> Patient {
        Patient(firstName: first, lastName: last, dateOfBirth: try CalendarDate(iso8601: "1980-05-17"))
    }
}

/// Collects what an async sequence delivers, so a test can wait for it with a deadline.
actor Collector<Element: Sendable> {
    private(set) var values: [Element] = []
    private(set) var isFinished = false
    private(set) var failure: (any Error)?

    func append(_ value: Element) { values.append(value) }
    func finish(_ error: (any Error)?) { isFinished = true; failure = error }

    /// Waits until `condition` holds; `false` when it did not within `timeout`.
    func wait(timeout: Duration = .seconds(30), until condition: @Sendable (Collector) async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await condition(self)
    }

    func waitForCount(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await wait(timeout: timeout) { await $0.values.count >= count }
    }

    func waitUntilFinished(timeout: Duration = .seconds(30)) async -> Bool {
        await wait(timeout: timeout) { await $0.isFinished }
    }

    /// Starts iterating `stream` in a task.
    static func collect(_ stream: AsyncStream<Element>) -> (Collector, Task<Void, Never>) {
        let collector = Collector()
        let task = Task {
            for await value in stream { await collector.append(value) }
            await collector.finish(nil)
        }
        return (collector, task)
    }

    static func collect(_ stream: AsyncThrowingStream<Element, any Error>) -> (Collector, Task<Void, Never>) {
        let collector = Collector()
        let task = Task {
            do {
                for try await value in stream { await collector.append(value) }
                await collector.finish(nil)
            } catch {
                await collector.finish(error)
            }
        }
        return (collector, task)
    }
}

/// A thread-safe counter for fetch closures.
final class Counter: Sendable {
    private let lock = NSLock()
    // Safety: only touched under `lock`.
    private nonisolated(unsafe) var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
