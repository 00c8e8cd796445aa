import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// `medvault` commands racing on one vault, as separate processes (issue #12): key
/// changes and rotations from several processes at once never lose a change that was
/// reported as done, and a command that cannot run says the vault is in use and changes
/// nothing.
///
/// Each round starts its commands at random offsets (a seeded generator: every failure
/// message names the seed; `MEDVAULT_TEST_SEED=<seed>` replays the choices), waits for
/// all of them, then checks the vault through the library.
@Suite("CLI races: commands of several processes on one vault")
struct CLIRaceTests {
    static let rounds = 50
    /// The largest random offset between the starts of a round's commands. A command
    /// runs for about 50–150 ms, so the commands overlap in most rounds, in every order,
    /// and in some rounds one has finished before the other starts.
    static let spread = 150

    @Test("passwd ∥ rotate-key (50 rounds): the last successful passwd's password opens the vault, the one it replaced does not, one key generation per successful rotation")
    func passwdAgainstRotateKey() async throws {
        var random = SeededGenerator.fromEnvironment()
        let seed = random.seed
        let replay = random
        try await replay.reportingSeed { try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            var password = CLIHarness.password
            var generation: UInt64 = 1
            var refusedRotations = 0
            for round in 1...Self.rounds {
                let context = "seed \(seed), round \(round)"
                let newPassword = "clave de la ronda \(round)"
                let offsets = CLIRace.offsets(2, spread: Self.spread, using: &random)
                let results = try await CLIRace.run([
                    .init(offset: offsets[0], arguments: ["passwd", folder.path, "--password-stdin"],
                          input: "\(password)\n\(newPassword)\n"),
                    .init(offset: offsets[1], arguments: ["rotate-key", folder.path, "--password-stdin"],
                          input: "\(password)\n"),
                ])
                let passwd = CLIRace.outcome(of: results[0], "\(context), passwd")
                let rotation = CLIRace.outcome(of: results[1], passwordMayHaveChanged: passwd == .succeeded,
                                               "\(context), rotate-key")
                let replaced = password
                if passwd == .succeeded {
                    #expect(results[0].standardOutput == "Password changed.\n", "\(context)")
                    password = newPassword
                }
                if rotation == .succeeded {
                    generation += 1
                    #expect(results[1].standardOutput == "Database key rotated (key generation \(generation)).\n",
                            "\(context): rotate-key reported another generation")
                } else if rotation == .vaultInUse {
                    refusedRotations += 1
                }
                try await CLIRace.withVault(folder, password: password, generation: generation, context)
                if password != replaced {
                    try await CLIRace.expectRefused(folder, password: replaced, context)
                }
            }
            #expect(generation > 1, "seed \(seed): no rotate-key succeeded, the race tested only refusals")
            print("passwd ∥ rotate-key, seed \(seed): \(generation - 1) rotations, \(refusedRotations) refused as in use")
            try await CLIRace.expectInfoAndVerify(folder, password: password, generation: generation, "seed \(seed)")
        } }
    }

    @Test("passwd ∥ recovery-key (50 rounds): the last successful passwd's password and the last printed recovery key open the vault; the replaced ones do not")
    func passwdAgainstRecoveryKey() async throws {
        var random = SeededGenerator.fromEnvironment()
        let seed = random.seed
        let replay = random
        try await replay.reportingSeed { try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            var recoveryKey = try await CLIHarness.initVault(folder)
            var password = CLIHarness.password
            var regenerated = 0
            for round in 1...Self.rounds {
                let context = "seed \(seed), round \(round)"
                let newPassword = "clave de la ronda \(round)"
                let offsets = CLIRace.offsets(2, spread: Self.spread, using: &random)
                let results = try await CLIRace.run([
                    .init(offset: offsets[0], arguments: ["passwd", folder.path, "--password-stdin"],
                          input: "\(password)\n\(newPassword)\n"),
                    .init(offset: offsets[1], arguments: ["recovery-key", folder.path, "--password-stdin"],
                          input: "\(password)\n"),
                ])
                let passwd = CLIRace.outcome(of: results[0], "\(context), passwd")
                let regeneration = CLIRace.outcome(of: results[1], passwordMayHaveChanged: passwd == .succeeded,
                                                   "\(context), recovery-key")
                let replacedPassword = password
                let replacedKey = recoveryKey
                if passwd == .succeeded { password = newPassword }
                let printed = CLIHarness.recoveryKey(in: results[1].standardOutput)
                #expect((printed != nil) == (regeneration == .succeeded),
                        "\(context): recovery-key printed a key if and only if it exited 0")
                if regeneration == .succeeded, let printed {
                    recoveryKey = printed
                    regenerated += 1
                }
                try await CLIRace.withVault(folder, password: password, generation: 1, context)
                if password != replacedPassword {
                    try await CLIRace.expectRefused(folder, password: replacedPassword, context)
                }
                try await CLIRace.expectRecoveryKey(recoveryKey, opens: true, folder, context)
                if recoveryKey != replacedKey {
                    try await CLIRace.expectRecoveryKey(replacedKey, opens: false, folder, context)
                }
            }
            #expect(regenerated > 0, "seed \(seed): no recovery-key succeeded")
            print("passwd ∥ recovery-key, seed \(seed): \(regenerated) recovery keys printed")
            try await CLIRace.expectInfoAndVerify(folder, password: password, generation: 1, "seed \(seed)")
        } }
    }

    @Test("patients add ∥ rotate-key (50 rounds): every patient whose add exited 0 is there, no other; one key generation per successful rotation")
    func patientsAddAgainstRotateKey() async throws {
        var random = SeededGenerator.fromEnvironment()
        let seed = random.seed
        let replay = random
        try await replay.reportingSeed { try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let password = CLIHarness.password
            var generation: UInt64 = 1
            var added: [UUID: String] = [:]
            var refusedRotations = 0
            for round in 1...Self.rounds {
                let context = "seed \(seed), round \(round)"
                let adds = Int.random(in: 1...3, using: &random)
                let offsets = CLIRace.offsets(adds + 1, spread: Self.spread, using: &random)
                var launches = (0..<adds).map { index in
                    CLIRace.Launch(offset: offsets[index], arguments: [
                        "patients", "add", folder.path, "--password-stdin", "--first-name", "Carrera",
                        "--last-name", "Ronda \(round) alta \(index)", "--birth-date", "1980-01-01",
                    ], input: password + "\n")
                }
                launches.append(.init(offset: offsets[adds], arguments: ["rotate-key", folder.path, "--password-stdin"],
                                      input: password + "\n"))
                let results = try await CLIRace.run(launches)
                for index in 0..<adds {
                    let outcome = CLIRace.outcome(of: results[index], "\(context), patients add \(index)")
                    if outcome == .succeeded {
                        let printed = results[index].standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                        let id = try #require(UUID(uuidString: printed), "\(context): add printed no id")
                        added[id] = "Ronda \(round) alta \(index)"
                    }
                }
                let rotation = CLIRace.outcome(of: results[adds], "\(context), rotate-key")
                if rotation == .succeeded {
                    generation += 1
                    #expect(results[adds].standardOutput == "Database key rotated (key generation \(generation)).\n",
                            "\(context): rotate-key reported another generation")
                } else if rotation == .vaultInUse {
                    refusedRotations += 1
                }
                let stored = try await CLIRace.withVault(folder, password: password, generation: generation, context) {
                    try await Self.patientNames($0)
                }
                // Every add that exited 0 is stored under the id it printed; a refused
                // add stored nothing.
                #expect(stored == added, "\(context): stored patients differ from the adds that exited 0")
            }
            #expect(generation > 1, "seed \(seed): no rotate-key succeeded, the race tested only refusals")
            // And `patients list` lists each of them: its short id and its unique name.
            let list = try await CLIHarness.run(["patients", "list", folder.path, "--password-stdin", "--limit", "1000"],
                                                input: password + "\n")
            #expect(list.status == 0, "seed \(seed): \(list.standardError)")
            let listed = list.standardOutput.split(separator: "\n")
            for (id, name) in added {
                let short = String(id.uuidString.lowercased().prefix(8))
                #expect(listed.contains { $0.hasPrefix(short) && $0.contains(name) }, "seed \(seed): \(name) is not listed")
            }
            print("patients add ∥ rotate-key, seed \(seed): \(added.count) patients added, \(generation - 1) rotations, \(refusedRotations) refused as in use")
            try await CLIRace.expectInfoAndVerify(folder, password: password, generation: generation, "seed \(seed)")
        } }
    }

    @Test("rotate-key killed with SIGKILL at a random moment while patients add commands wait (15 rounds): the adds that exited 0 are kept, the rotation is finished or undone")
    func rotateKeyKilledWhileAddsWait() async throws {
        var random = SeededGenerator.fromEnvironment()
        let seed = random.seed
        let replay = random
        try await replay.reportingSeed { try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let password = CLIHarness.password
            // Enough rows that the rotation's copy takes a while: kills land inside it.
            var generation: UInt64 = 1
            var added = try await CLIRace.withVault(folder, password: password, generation: generation, "seed \(seed)") {
                try await VaultFixtures.insertRawPatients($0, count: 500)
                return try await Self.patientNames($0)
            }
            var killed = 0
            var killedAfterSwap = 0
            for round in 1...15 {
                let context = "seed \(seed), round \(round)"
                let adds = Int.random(in: 1...2, using: &random)
                var launches = [CLIRace.Launch(offset: 0, arguments: ["rotate-key", folder.path, "--password-stdin"],
                                               input: password + "\n", killAt: Int.random(in: 20...900, using: &random))]
                for index in 0..<adds {
                    launches.append(.init(offset: Int.random(in: 0...150, using: &random), arguments: [
                        "patients", "add", folder.path, "--password-stdin", "--first-name", "Carrera",
                        "--last-name", "Muerte \(round) alta \(index)", "--birth-date", "1980-01-01",
                    ], input: password + "\n"))
                }
                let results = try await CLIRace.run(launches)
                let rotation: CLIRace.Outcome?
                if results[0].killedBySignal {
                    killed += 1
                    rotation = nil
                    #expect(results[0].standardOutput.isEmpty, "\(context): a killed rotate-key reported success")
                } else {
                    rotation = CLIRace.outcome(of: results[0], "\(context), rotate-key")
                }
                for index in 1...adds {
                    if CLIRace.outcome(of: results[index], "\(context), patients add") == .succeeded {
                        let printed = results[index].standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                        let id = try #require(UUID(uuidString: printed), "\(context): add printed no id")
                        added[id] = "Muerte \(round) alta \(index - 1)"
                    }
                }
                // A killed rotation may have got as far as the swap: the next opener (a
                // waiting add, or this check) finished it (one generation more) or undid
                // it (none).
                let before = generation
                let observed = try await Vault.open(at: folder, password: try Password(password), options: VaultFixtures.options)
                let info = try await observed.info()
                let stored = try await Self.patientNames(observed)
                let layout = observed.layout
                await observed.lock()
                if rotation == .succeeded {
                    generation += 1
                } else if results[0].killedBySignal, info.databaseKeyGeneration == generation + 1 {
                    generation += 1
                    killedAfterSwap += 1
                }
                #expect(info.databaseKeyGeneration == generation,
                        "\(context): generation \(info.databaseKeyGeneration) after \(before) and a \(String(describing: rotation)) rotation")
                #expect(stored == added, "\(context): stored patients differ from the adds that exited 0")
                #expect(!FileManager.default.fileExists(atPath: layout.database.path + ".rekey"),
                        "\(context): the killed rotation's copy was left behind")
                #expect(try !KeyringFile.read(at: layout.keyring).hasPendingRotation, "\(context)")
            }
            print("rotate-key killed while adds wait, seed \(seed): \(killed) of 15 rotate-key killed, \(killedAfterSwap) of them after the database swap (one generation more), \(generation - 1) generations")
            try await CLIRace.expectInfoAndVerify(folder, password: password, generation: generation, "seed \(seed)")
        } }
    }

    /// Every patient's id and last name.
    static func patientNames(_ vault: Vault) async throws -> [UUID: String] {
        var names: [UUID: String] = [:]
        for patient in try await vault.patients.list(filter: .all, limit: 10_000).patients {
            names[patient.id] = patient.lastName
        }
        return names
    }
}
