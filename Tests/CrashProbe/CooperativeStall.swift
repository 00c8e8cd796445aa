import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

// CrashProbe stall-writes <vault folder>
//     Opens the vault (password "probe", fast test KDF) once per core — as many handles,
//     each with its own writer connection, as Swift's cooperative pool has threads —,
//     prints "open", and waits for its standard input to close. Then, while a task of
//     this process ticks every 10 ms, it runs max(8, handles) concurrent patient
//     updates spread over the handles and waits for them; it prints "writes <n>",
//     "max-gap-ms <n>"
//     (the longest time between two ticks, from the updates' start to their end),
//     "updated <n>" and "busy <n>" (updates that failed with the documented busy error),
//     and "failed <n>" (any other error), then locks the vault.
//
// The test runs it while another process holds the vault's write lock: the updates wait
// for that lock, and that wait must not hold Swift's cooperative threads (docs/storage.md,
// "What a short job may block"). It runs in a process of its own so that the rest of the
// test suite cannot make a tick late.

/// The longest pause between ticks of a task that sleeps 10 ms in a loop.
final class TickRecorder: @unchecked Sendable {
    // Safety of @unchecked Sendable: `last`, `longest` and `stopped` are read and
    // written only under `lock`.
    private let lock = NSLock()
    private var last = ContinuousClock.now
    private var longest = Duration.zero
    private var stopped = false

    func start() -> Task<Void, Never> {
        lock.withLock { last = ContinuousClock.now }
        return Task {
            while !lock.withLock({ stopped }) {
                try? await Task.sleep(for: .milliseconds(10))
                lock.withLock {
                    let now = ContinuousClock.now
                    longest = max(longest, now - last)
                    last = now
                }
            }
        }
    }

    /// Stops ticking; the longest pause seen, counting the one still running.
    func stop() -> Duration {
        lock.withLock {
            stopped = true
            return max(longest, ContinuousClock.now - last)
        }
    }
}

func stallWrites(folder: String) async throws {
    let first = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    // Single-record updates: the short writes that take the fast path (a create goes
    // through the batch path, always on the writer's thread).
    let handles = max(1, ProcessInfo.processInfo.activeProcessorCount)
    let writes = max(8, handles)  // at least one waiting write per cooperative thread
    let patients = try await first.patients.create((0..<writes).map { number in
        Patient(firstName: "Stall", lastName: "Writer \(number)", dateOfBirth: try! CalendarDate(iso8601: "1980-01-01"))
    })
    await first.lock()
    var vaults: [Vault] = []
    for _ in 0..<handles {
        let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                         options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
        // Warm the writer up: the fast path runs only on an open connection.
        _ = try await vault.patients.count()
        vaults.append(vault)
    }
    FileHandle.standardOutput.write(Data("open\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()

    let ticks = TickRecorder()
    let ticker = ticks.start()
    // nil: updated; true: the documented busy error (SQLITE_BUSY after the busy timeout).
    let outcomes = await withTaskGroup(of: Bool?.self) { group in
        for number in 0..<writes {
            let vault = vaults[number % vaults.count]
            group.addTask {
                do {
                    var patient = patients[number]
                    patient.phoneNumber = "+34 600 000 \(100 + number)"
                    _ = try await vault.patients.update(patient)
                    return nil
                } catch {
                    return (error as? MedVaultError)?.sqliteResultCode?.primary == .busy
                }
            }
        }
        var codes: [Bool?] = []
        for await code in group { codes.append(code) }
        return codes
    }
    let longest = ticks.stop()
    await ticker.value
    let updated = outcomes.filter { $0 == nil }.count
    let busy = outcomes.filter { $0 == true }.count
    let milliseconds = longest.components.seconds * 1_000 + longest.components.attoseconds / 1_000_000_000_000_000
    FileHandle.standardOutput.write(Data("""
        writes \(writes)
        max-gap-ms \(milliseconds)
        updated \(updated)
        busy \(busy)
        failed \(outcomes.count - updated - busy)

        """.utf8))
    for vault in vaults { await vault.lock() }
}
