import Foundation
import MedVault
import MedVaultCore

// CrashProbe stall-writes <vault folder>
//     Opens the vault (password "probe", fast test KDF), prints "open", and waits for its
//     standard input to close. Then, while a task of this process ticks every 10 ms, it
//     runs 8 concurrent patient creates and waits for them; it prints "max-gap-ms <n>"
//     (the longest time between two ticks, from the creates' start to their end),
//     "created <n>" and "busy <n>" (creates that failed with the documented busy error),
//     and "failed <n>" (any other error), then locks the vault.
//
// The test runs it while another process holds the vault's write lock: the creates wait
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
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly))
    // Warm the writer up: the fast path needs an open connection.
    _ = try await vault.patients.count()
    FileHandle.standardOutput.write(Data("open\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()

    let ticks = TickRecorder()
    let ticker = ticks.start()
    // nil: created; true: the documented busy error (SQLITE_BUSY after the busy timeout).
    let outcomes = await withTaskGroup(of: Bool?.self) { group in
        for number in 0..<8 {
            group.addTask {
                do {
                    _ = try await vault.patients.create(
                        Patient(firstName: "Stall", lastName: "Writer \(number)",
                                dateOfBirth: try CalendarDate(iso8601: "1980-01-01")))
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
    let created = outcomes.filter { $0 == nil }.count
    let busy = outcomes.filter { $0 == true }.count
    let milliseconds = longest.components.seconds * 1_000 + longest.components.attoseconds / 1_000_000_000_000_000
    FileHandle.standardOutput.write(Data("""
        max-gap-ms \(milliseconds)
        created \(created)
        busy \(busy)
        failed \(outcomes.count - created - busy)

        """.utf8))
    await vault.lock()
}
