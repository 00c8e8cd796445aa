import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// C — concurrent durable writes: 16 tasks share one vault for 10 s (× scale, at
/// least 2 s), each alternating a read (`patients.get` of a random patient) and a
/// write (`patients.create` of a new patient, a durable transaction). Reports the
/// acknowledged writes per second and the write latency p50/p99, then counts the
/// patients: every acknowledged write must be there (none lost), or the run fails.
/// The figure to beat is issue #14's measurement (≈240 writes/s, 65–68 ms per write);
/// there is no peer line: the references are single-connection programs.
struct ConcurrencyWorkload: Workload {
    let id = "C"
    let title = "16 tasks mixing reads and durable writes on one vault"

    static let tasks = 16
    static let initialPatients = 1_000

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let seconds = max(2.0, 10.0 * context.scale)
        let data = ClinicData(patientCount: Self.initialPatients, sessionCount: 0, seed: context.seed)
        let folder = context.directory.appendingPathComponent("c-vault")
        try? FileManager.default.removeItem(at: folder)
        let vault = try await Vault.create(at: folder, password: try Password("concurrencia"),
                                           options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))).vault
        _ = try await vault.patients.create(data.patients)
        let ids = data.patients.map(\.id)
        context.log(String(format: "C: %d tasks for %.1f s", Self.tasks, seconds))

        let deadline = ContinuousClock.now + .seconds(seconds)
        let start = ContinuousClock.now
        let perTask = try await withThrowingTaskGroup(of: [Double].self) { group in
            for task in 0..<Self.tasks {
                let seed = context.seed ^ UInt64(task + 1) &* 0x9E37_79B9
                group.addTask {
                    var names = SpanishNameGenerator(seed: seed)
                    var rng = SplitMix64(seed: seed)
                    var writes: [Double] = []
                    var step = 0
                    while ContinuousClock.now < deadline {
                        if step.isMultiple(of: 2) {
                            _ = try await vault.patients.get(ids[Int.random(in: 0..<ids.count, using: &rng)])
                        } else {
                            let (first, last) = names.fullName()
                            let patient = Patient(firstName: first, lastName: last,
                                                  dateOfBirth: try CalendarDate(iso8601: names.birthDate()))
                            writes.append(try await Stopwatch.seconds { _ = try await vault.patients.create(patient) } * 1e3)
                        }
                        step += 1
                    }
                    return writes
                }
            }
            var all: [[Double]] = []
            for try await writes in group { all.append(writes) }
            return all
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let latencies = perTask.flatMap { $0 }
        let stored = try await vault.patients.count(filter: .all)
        await vault.lock()
        guard stored == Self.initialPatients + latencies.count else {
            throw BenchmarkError("C: \(latencies.count) writes acknowledged, "
                                 + "\(stored - Self.initialPatients) stored: writes lost")
        }
        return [
            Measurement(label: "C acknowledged durable writes, \(Self.tasks) tasks (\(latencies.count) writes)",
                        referenceLabel: "", medVault: Double(latencies.count) / elapsed, reference: nil,
                        unit: .writesPerSecond, target: nil,
                        note: "issue #14 measured ≈240 writes/s; the target is at least 3× that at the same "
                            + "durability; every acknowledged write was found afterwards"),
            Measurement(label: "C write latency p50", referenceLabel: "", medVault: Statistics.p50(latencies),
                        reference: nil, unit: .milliseconds, target: nil, note: nil),
            Measurement(label: "C write latency p99", referenceLabel: "", medVault: Statistics.p99(latencies),
                        reference: nil, unit: .milliseconds, target: nil, note: nil),
        ]
    }
}
