import Foundation
import MedVaultTestSupport
import Testing

/// Runs the built demo executables and checks the lines a reader relies on.
@Suite("Examples: clinic and medication demos")
struct ExamplesDemoTests {
    /// Runs a product of the package with outputs captured, killed after `timeout`.
    private func run(_ product: String, timeout: Double = 60) async throws -> (output: String, status: Int32) {
        let path = try #require(StorageFixtures.productPath(product), "\(product) is built with the tests")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        let run = try await process.runCapturingOutput(mergingErrors: true, timeout: .seconds(timeout))
        if run.timedOut { Issue.record("\(product) did not finish in \(timeout) s") }
        return (run.outputText, run.status)
    }

    @Test("ClinicDemo: real Argon2id, recovery key, no plaintext on disk, lists, search, history")
    func clinicDemo() async throws {
        let (output, status) = try await run("ClinicDemo")
        #expect(status == 0, "\(output)")
        #expect(output.contains("Argon2id m=64 MiB, t=3, p=4"))
        #expect(CLIHarness.recoveryKey(in: output.replacingOccurrences(of: "Recovery key: ", with: "")) != nil)
        #expect(output.contains("3 patients, 6 sessions, 4 ICD-11 diagnoses"))
        #expect(output.contains("records.medvault: "))
        #expect(output.contains("no plaintext found"))
        #expect(!output.contains("PLAINTEXT FOUND"))
        #expect(output.contains("Reopened from disk with the password"))
        #expect(output.contains("Active patients (2)"))
        #expect(output.contains("García Núñez, José"))
        #expect(output.contains("Ibáñez Peña, María"))
        #expect(output.contains("Muñoz Ortega, Lucía  born 1978-06-02  deactivated 2026-03-16"))
        #expect(output.contains("Search \"jose\" (accents and case ignored): 1 found"))
        #expect(output.contains("  José García Núñez  born 1984-03-07"))
        #expect(output.contains("6A70  Single episode depressive disorder (principal, moderate; ICD-11 2024-01)"))
        #expect(output.contains("6B00  Generalised anxiety disorder"))
        let history = try #require(output.range(of: "History of José García Núñez, oldest first"))
        let first = try #require(output.range(of: "2026-02-02 10:00", range: history.upperBound..<output.endIndex))
        let last = try #require(output.range(of: "2026-03-02 10:00", range: history.upperBound..<output.endIndex))
        #expect(first.lowerBound < last.lowerBound)
        #expect(output.contains("Removed the throwaway vault."))
        #expect(output.split(separator: "\n", omittingEmptySubsequences: false).count <= 45, "fits one screen")
    }

    @Test("MedicationDemo: today's doses, the week's exceptions, adherence per medication, low inventory, a correction and a refill")
    func medicationDemo() async throws {
        let (output, status) = try await run("MedicationDemo")
        #expect(status == 0, "\(output)")
        for line in [
            "Today, Monday 2026-03-16",
            "  08:00  Metformina 850 mg   taken at 08:05",
            "  11:15  Salbutamol 100 µg   taken as needed",
            "  20:00  Metformina 850 mg   pending",
            "  Wed 2026-03-11 20:00  Metformina 850 mg   LATE, taken at 21:40",
            "  Thu 2026-03-12 23:00  Amoxicilina 500 mg  MISSED",
            "  Fri 2026-03-13 08:00  Metformina 850 mg   skipped, reason: sideEffects",
            "  Sat 2026-03-14 20:00  Metformina 850 mg   MISSED (never logged)",
            "  Metformina 850 mg   12/14   86%  11 on time, 1 late, 1 skipped, 1 missed",
            "  Amoxicilina 500 mg  20/21   95%  19 on time, 1 late, 0 skipped, 1 missed",
            "  All scheduled       32/35   91%  30 on time, 2 late, 1 skipped, 2 missed",
            "LOW INVENTORY: Metformina 850 mg: 9 tablets left, minimum 10; a package holds 60. Time to refill.",
            // The mistaken "skipped" corrected: the stock and the adherence follow, the old value is kept.
            "  Corrected Fri 2026-03-13 08:00 Metformina 850 mg: skipped → taken at 08:10",
            "  Stock 9 tablets → 8 tablets",
            "  Adherence now: 13/14   93%  12 on time, 1 late, 0 skipped, 1 missed",
            "  History: was skipped (version 1), correction: logged the wrong button",
            "  Refill 2026-03-16: +60 tablets, stock 68 tablets",
            // 68 doses twice a day from Monday 13:30: today 20:00, 33 full days, Sunday 19 April 08:00.
            "  Lasts 34 days at the current schedule: runs out on Sunday 2026-04-19",
            // The taper steps down, the paused schedule expects nothing, reminders come 15 minutes early.
            "  Thu 2026-03-19  08:00 Metformina 850 mg (1 tablet), 09:00 Prednisona 10 mg (2 tablets), 20:00 Metformina 850 mg (1 tablet)",
            "  Fri 2026-03-20  09:00 Prednisona 10 mg (2 tablets)",
            "  Sun 2026-03-22  09:00 Prednisona 10 mg (1 tablet)",
            "  Tuesday 2026-03-17 08:45  09:00 dose of Prednisona 10 mg",
        ] {
            #expect(output.contains(line), "missing: \(line)")
        }
        #expect(!output.contains("LOW INVENTORY: Salbutamol"))
        // Deterministic: a second run prints the same thing.
        let (again, _) = try await run("MedicationDemo")
        #expect(again == output)
    }
}
