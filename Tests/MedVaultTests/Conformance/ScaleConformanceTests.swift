import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// 10,000 patients × 10 sessions built through the batch APIs: history and search
/// still return exactly the right rows.
@Suite("Clinical repositories at scale")
struct ScaleConformanceTests {
    typealias F = ClinicalFixtures

    static let patientCount = 10_000
    static let sessionsPerPatient = 10

    static func code(_ index: Int) -> String {
        let digits = String(index)
        return "P" + String(repeating: "0", count: 5 - digits.count) + digits
    }

    @Test(arguments: ClinicalBackend.all)
    func tenThousandPatientsHundredThousandSessions(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let lastNames = ["García", "Álvarez", "Núñez", "Pérez", "Ruiz", "Sánchez", "Gómez", "Martín"]
        let patients = (0..<Self.patientCount).map { index in
            F.patient(Self.code(index), lastNames[index % lastNames.count], born: "1970-01-01")
        }
        let clock = ContinuousClock()
        let start = clock.now
        for batch in stride(from: 0, to: patients.count, by: 1_000) {
            try await repos.patients.create(Array(patients[batch..<min(batch + 1_000, patients.count)]))
        }
        let patientsDone = clock.now
        var probeSessions: [ClinicalSession] = []
        for batch in stride(from: 0, to: patients.count, by: 100) {
            var sessions: [ClinicalSession] = []
            var diagnoses: [Diagnosis] = []
            for patient in patients[batch..<min(batch + 100, patients.count)] {
                for number in 0..<Self.sessionsPerPatient {
                    let session = ClinicalSession(
                        patientID: patient.id, date: F.now.addingTimeInterval(Double(number) * 86_400),
                        status: .completed)
                    sessions.append(session)
                    diagnoses.append(Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: session.date))
                }
            }
            try await repos.sessions.create(sessions)
            try await repos.diagnoses.create(diagnoses)
            if batch == 4_200 { probeSessions = Array(sessions[..<Self.sessionsPerPatient]) }
        }
        let built = clock.now

        #expect(try await repos.patients.count() == Self.patientCount)
        let probe = patients[4_200]
        let history = try await repos.sessions.history(of: probe.id, after: nil, limit: 100)
        #expect(history.entries.map(\.session.id) == probeSessions.reversed().map(\.id))
        #expect(history.entries.allSatisfy { $0.diagnoses.count == 1 && $0.diagnoses[0].sessionID == $0.session.id })
        #expect(history.nextCursor == nil)

        let found = try await repos.patients.search("p04200")
        #expect(found.map(\.id) == [probe.id])
        let byLastName = try await repos.patients.search("nunez p042", filter: .active, limit: 500)
        #expect(Set(byLastName.map(\.id)) == Set(patients.enumerated()
            .filter { $0.offset / 100 == 42 && $0.offset % lastNames.count == 2 }.map(\.element.id)))
        #expect(try await repos.diagnoses.list(patientID: probe.id).count == Self.sessionsPerPatient)
        let firstPage = try await repos.patients.list(filter: .active, after: nil, limit: 50)
        #expect(firstPage.patients.allSatisfy { $0.lastName == "Álvarez" })
        let queried = clock.now
        print("scale [\(backend.name)]: patients \(patientsDone - start), sessions+diagnoses \(built - patientsDone), queries \(queried - built)")
    }
}
