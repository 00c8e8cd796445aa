import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Runs `medvault` commands at the same time on one vault and classifies how each ended,
/// for ``CLIRaceTests``.
enum CLIRace {
    /// One command of a round: when it starts, in milliseconds after the round began.
    struct Launch {
        let offset: Int
        let arguments: [String]
        let input: String
        /// When to kill it with SIGKILL, in milliseconds after the round began; `nil`: never.
        var killAt: Int?
    }

    /// How a command of a race ended. Any other ending is recorded as a test failure.
    enum Outcome: Equatable {
        /// Exit status 0.
        case succeeded
        /// Refused because another process had the vault: status 9, one clear line.
        case vaultInUse
        /// The password it was given had just been changed by the concurrent `passwd`.
        case wrongPassword
    }

    /// The offsets of `count` commands of a round: each at random in `0...spread` ms.
    static func offsets(_ count: Int, spread: Int, using random: inout SeededGenerator) -> [Int] {
        (0..<count).map { _ in Int.random(in: 0...spread, using: &random) }
    }

    /// Starts every launch at its offset (and kills those with a ``Launch/killAt`` then),
    /// then waits for all of them.
    ///
    /// - Returns: The results, in the order of `launches`.
    static func run(_ launches: [Launch]) async throws -> [CLIResult] {
        // Every start and every kill, in time order (a start before a kill at the same time).
        var events = launches.indices.map { (time: launches[$0].offset, index: $0, kill: false) }
        for index in launches.indices {
            if let killAt = launches[index].killAt { events.append((time: killAt, index: index, kill: true)) }
        }
        events.sort { ($0.time, $0.kill ? 1 : 0) < ($1.time, $1.kill ? 1 : 0) }
        let clock = ContinuousClock()
        let begin = clock.now
        var running = [RunningCLICommand?](repeating: nil, count: launches.count)
        for event in events {
            try await clock.sleep(until: begin.advanced(by: .milliseconds(event.time)))
            if event.kill {
                running[event.index]?.sigkill()
            } else {
                running[event.index] = try CLIHarness.start(launches[event.index].arguments, input: launches[event.index].input)
            }
        }
        var results: [CLIResult] = []
        for command in running {
            let started = try #require(command)
            results.append(try await started.finish())
        }
        return results
    }

    /// Classifies a command's ending, recording a failure (with `context`, which holds
    /// the seed) for anything but success, a clear "in use" refusal, or — when
    /// `passwordMayHaveChanged` — a clear "wrong password".
    static func outcome(of result: CLIResult, passwordMayHaveChanged: Bool = false,
                        _ context: String) -> Outcome? {
        let errors = result.errorLinesWithoutWarnings
        let command = "\(context): medvault exited \(result.status) with \(errors)"
        guard !result.killedBySignal else {
            Issue.record("\(context): medvault died of signal \(result.status)")
            return nil
        }
        switch result.status {
        case 0:
            #expect(errors.isEmpty, "\(command)")
            return .succeeded
        case 9:
            #expect(errors.count == 1, "\(command)")
            let line = errors.first ?? ""
            #expect(line.hasPrefix("medvault: error: the vault is in use: ") && line.contains("try again"),
                    "\(command)")
            #expect(result.standardOutput.isEmpty, "\(command): a refused command printed a result")
            return .vaultInUse
        case 3 where passwordMayHaveChanged:
            #expect(errors == ["medvault: error: wrong password"], "\(command)")
            return .wrongPassword
        default:
            Issue.record("\(command)")
            return nil
        }
    }

    // MARK: - Checks through the library

    /// Opens the vault with `password`, checks its key generation, runs `body`, locks it.
    static func withVault<Result>(
        _ folder: URL, password: String, generation: UInt64, _ context: String,
        _ body: (Vault) async throws -> Result = { _ in () }
    ) async throws -> Result {
        let vault: Vault
        do {
            vault = try await Vault.open(at: folder, password: try Password(password), options: VaultFixtures.options)
        } catch {
            Issue.record("\(context): the vault does not open with the password the last successful passwd set")
            throw error
        }
        do {
            let info = try await vault.info()
            #expect(info.databaseKeyGeneration == generation,
                    "\(context): the key generation is not 1 + the successful rotate-key runs")
            let result = try await body(vault)
            await vault.lock()
            return result
        } catch {
            await vault.lock()
            throw error
        }
    }

    /// Expects `password` to be refused with `wrongPassword`.
    static func expectRefused(_ folder: URL, password: String, _ context: String) async throws {
        do {
            let vault = try await Vault.open(at: folder, password: try Password(password), options: VaultFixtures.options)
            await vault.lock()
            Issue.record("\(context): a password that a successful passwd replaced still opens the vault")
        } catch let error as MedVaultError {
            #expect(error.code == .wrongPassword, "\(context): \(error.code)")
        }
    }

    /// Expects the recovery key `key` to open the vault (`opens`) or to be refused.
    static func expectRecoveryKey(_ key: String, opens: Bool, _ folder: URL, _ context: String) async throws {
        let recoveryKey = try RecoveryKey(parsing: key)
        do {
            let vault = try await Vault.open(at: folder, recoveryKey: recoveryKey, options: VaultFixtures.options)
            await vault.lock()
            #expect(opens, "\(context): a replaced recovery key still opens the vault")
        } catch let error as MedVaultError {
            #expect(!opens, "\(context): the last printed recovery key does not open the vault: \(error.code)")
            #expect(error.code == .wrongRecoveryKey, "\(context): \(error.code)")
        }
    }

    /// The CLI's own view at the end: `info` prints the generation, `verify` finds no
    /// problem but the test preset's weak password slot.
    static func expectInfoAndVerify(_ folder: URL, password: String, generation: UInt64, _ context: String) async throws {
        let info = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
        #expect(info.status == 0, "\(context): info failed: \(info.standardError)")
        #expect(info.standardOutput.contains("generation \(generation)\n"),
                "\(context): info does not print key generation \(generation)")
        let verify = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
        let problems = verify.standardOutput.split(separator: "\n").filter { $0.hasPrefix("PROBLEM") }
        #expect(problems.count == 1 && problems[0].contains("below the production floor"),
                "\(context): verify found problems: \(verify.standardOutput) \(verify.standardError)")
    }
}
