import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault icd search` and `medvault diagnoses add` against the WHO-shaped test server.
@Suite("CLI: the ICD-11 catalogue")
struct CLIICD11Tests {
    /// The environment of a run against `server`: its URLs, the test credentials.
    static func environment(_ server: ICDTestServer, secret: String = ICDTestServer.clientSecret) -> [String: String] {
        ["MEDVAULT_ICD_BASE_URL": server.baseURL.absoluteString, "MEDVAULT_ICD_TOKEN_URL": server.tokenURL.absoluteString,
         "MEDVAULT_ICD_CLIENT_ID": ICDTestServer.clientID, "MEDVAULT_ICD_CLIENT_SECRET": secret]
    }

    static func expectNoSecrets(_ result: CLIResult) {
        for marker in [ICDTestServer.clientSecret, ICDTestServer.clientID, "tok-", "wrong-secret-5"] {
            #expect(!result.standardOutput.contains(marker))
            #expect(!result.standardError.contains(marker))
        }
    }

    @Test("icd search prints code and plain title per category, in the language asked for")
    func search() async throws {
        try await withICDTestServer { server in
            let spanish = try await CLIHarness.run(["icd", "search", "depresión", "--lang", "es"], environment: Self.environment(server))
            #expect(spanish.status == 0, "\(spanish.standardError)")
            #expect(spanish.standardOutput == """
                6A70  Trastorno depresivo de episodio único
                6A71  Trastorno depresivo recurrente
                6A72  Trastorno distímico

                """)
            let english = try await CLIHarness.run(["icd", "search", "anxiety", "--lang", "en", "--limit", "1"],
                                                   environment: Self.environment(server))
            #expect(english.standardOutput == "6B00  Generalised anxiety disorder\n")
            Self.expectNoSecrets(spanish)
        }
    }

    @Test("icd search: no credentials for the WHO is a usage error; rate limited and refused credentials are failures without secrets")
    func searchFailures() async throws {
        try await withICDTestServer { server in
            let none = try await CLIHarness.run(["icd", "search", "depresión"], environment: [
                "MEDVAULT_ICD_BASE_URL": "", "MEDVAULT_ICD_CLIENT_ID": "", "MEDVAULT_ICD_CLIENT_SECRET": ""])
            #expect(none.status == 64)
            #expect(none.standardError.contains("MEDVAULT_ICD_CLIENT_SECRET"))

            let refused = try await CLIHarness.run(["icd", "search", "depresión"],
                                                   environment: Self.environment(server, secret: "wrong-secret-5"))
            #expect(refused.status == 8)
            #expect(refused.errorLines == ["medvault: error: the ICD-11 token endpoint refused the client credentials"])
            Self.expectNoSecrets(refused)

            try await server.control("scenario=rate_limited&retry_after=30")
            let limited = try await CLIHarness.run(["icd", "search", "depresión"], environment: Self.environment(server))
            #expect(limited.status == 8)
            #expect(limited.standardError.contains("try again in 30 s"))
        }
    }

    @Test("diagnoses add freezes the code's snapshot; offline, a cached code still works and an unseen one fails")
    func diagnosesAdd() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.url.appendingPathComponent("vault")
            _ = try await CLIHarness.initVault(folder)
            let patientID = try await CLIRecordFixtures.addPatient(folder, first: "Ana", last: "Ruiz", born: "1990-01-02")
            let session = try await CLIRecordFixtures.withVault(folder) { vault in
                try await vault.sessions.create(ClinicalSession(patientID: patientID, date: Date()))
            }
            let server = try await ICDTestServer()
            let environment = Self.environment(server)
            let added = try await CLIHarness.run(
                ["diagnoses", "add", folder.path, session.id.uuidString, "--code", "6A70", "--severity", "moderate", "--password-stdin"],
                input: CLIHarness.password + "\n", environment: environment)
            #expect(added.status == 0, "\(added.standardError)")
            let lines = added.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            #expect(lines.last == "6A70  Trastorno depresivo de episodio único  (ICD-11 2024-01)")
            Self.expectNoSecrets(added)
            server.stop()

            let offline = try await CLIHarness.run(
                ["diagnoses", "add", folder.path, session.id.uuidString, "--code", "6A70", "--type", "secondary", "--password-stdin"],
                input: CLIHarness.password + "\n", environment: environment)
            #expect(offline.status == 0, "\(offline.standardError)")
            let unseen = try await CLIHarness.run(
                ["diagnoses", "add", folder.path, session.id.uuidString, "--code", "6B00", "--password-stdin"],
                input: CLIHarness.password + "\n", environment: environment)
            #expect(unseen.status == 8)
            #expect(unseen.errorLines == ["medvault: error: the ICD-11 server could not be reached"])

            let diagnoses = try await CLIRecordFixtures.withVault(folder) { vault in try await vault.diagnoses.list(sessionID: session.id) }
            #expect(diagnoses.count == 2)
            #expect(diagnoses.map(\.snapshot.code) == ["6A70", "6A70"])
            #expect(diagnoses[0].snapshot == diagnoses[1].snapshot)
            #expect(diagnoses.first?.snapshot.uri == "http://id.who.int/icd/entity/578635574")
            #expect(diagnoses.first { $0.diagnosisType == .principal }?.severity == .moderate)
            #expect(Set(diagnoses.map { $0.id.uuidString.lowercased() }).contains(lines.first ?? ""))
        }
    }

    @Test("diagnoses add refuses a session id that is not a UUID and an unknown type before anything runs")
    func diagnosesAddUsage() async throws {
        let notUUID = try await CLIHarness.run(["diagnoses", "add", "/nonexistent", "3f2a", "--code", "6A70"])
        #expect(notUUID.status == 64)
        let badType = try await CLIHarness.run(["diagnoses", "add", "/nonexistent", UUID().uuidString, "--code", "6A70",
                                                "--type", "main"])
        #expect(badType.status == 64)
    }
}
