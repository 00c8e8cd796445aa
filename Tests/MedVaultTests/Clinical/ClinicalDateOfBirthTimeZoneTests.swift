import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A date of birth is a calendar date: written by a process in UTC+14 and read by one
/// in UTC-10, it is the same day.
///
/// The time zone of a process is global state (and Foundation caches it), while tests
/// run in parallel: so each time zone gets its own child process (this test binary,
/// re-run with `TZ` set and a filter selecting ``timeZoneProbe()``).
@Suite("Date of birth across time zones (SQLCipher)")
struct ClinicalDateOfBirthTimeZoneTests {
    static let modeVariable = "MEDVAULT_TZ_PROBE"
    static let pathVariable = "MEDVAULT_TZ_PROBE_DB"
    static let keyVariable = "MEDVAULT_TZ_PROBE_KEY"
    static let birthDates = ["1980-05-17", "2000-01-01", "1969-12-31", "2024-02-29"]

    @Test func dateOfBirthIsTheSameDayInEveryTimeZone() async throws {
        guard ProcessInfo.processInfo.environment[Self.modeVariable] == nil else { return }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = SecureBytes.random(count: 32)
        let path = directory.file("vault.db").path
        let executable = try #require(CommandLine.arguments.first)
        for (zone, mode) in [("Pacific/Kiritimati", "write"), ("Pacific/Honolulu", "read"), ("UTC", "read")] {
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "timeZoneProbe"]
            var environment = ProcessInfo.processInfo.environment
            environment["TZ"] = zone
            environment[Self.modeVariable] = mode
            environment[Self.pathVariable] = path
            environment[Self.keyVariable] = StorageFixtures.hex(key)
            process.environment = environment
            let run = try await process.runCapturingOutput(mergingErrors: true)
            let text = run.outputText
            #expect(run.status == 0, "\(mode) in \(zone) failed: \(text.suffix(2_000))")
            #expect(text.contains("timeZoneProbe"), "the child ran no probe")
            #expect(text.contains("probe \(mode) ok in \(zone)"), "the child did not reach its checks")
        }
        // And this process, whatever its zone, reads the same days.
        let pool = try await VaultDatabase.open(at: URL(fileURLWithPath: path), key: key, mode: .openExisting,
                                               migrator: MedVaultSchema.migrator)
        let patients = try await SQLCipherPatientRepository(pool: pool).list(filter: .all, limit: 10).patients
        await pool.close()
        #expect(patients.map(\.dateOfBirth.iso8601).sorted() == Self.birthDates.sorted())
    }

    /// Runs only as a child of the test above (otherwise it returns at once).
    @Test func timeZoneProbe() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment[Self.modeVariable], let path = environment[Self.pathVariable],
              let hex = environment[Self.keyVariable], let zone = environment["TZ"]
        else { return }
        NSTimeZone.resetSystemTimeZone()
        // The process really runs in `zone` ("UTC" may be reported under another name).
        #expect(TimeZone.current.secondsFromGMT() == TimeZone(identifier: zone)?.secondsFromGMT())
        let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { offset -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        let pool = try await VaultDatabase.open(at: URL(fileURLWithPath: path), key: SecureBytes(copying: bytes),
                                               mode: .createIfMissing, migrator: MedVaultSchema.migrator)
        let patients = SQLCipherPatientRepository(pool: pool)
        if mode == "write" {
            for born in Self.birthDates {
                try await patients.create(ClinicalFixtures.patient("Ana", "Ruiz", born: born))
            }
        }
        let stored = try await patients.list(filter: .all, limit: 10).patients
        await pool.close()
        #expect(stored.map(\.dateOfBirth.iso8601).sorted() == Self.birthDates.sorted())
        // The day is also what a calendar in this zone would show for that date's components.
        #expect(stored.allSatisfy { CalendarDate($0.createdAt, in: .current) >= $0.dateOfBirth })
        print("probe \(mode) ok in \(zone)")
    }
}
