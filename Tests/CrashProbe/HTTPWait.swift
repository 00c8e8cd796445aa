import Foundation
import MedVaultSync
import MedVaultSyncWire

// CrashProbe http-wait <base URL>
//     Runs 8 concurrent pushes of 100 envelopes (a JSON body of about 140 KiB each, more
//     than libcurl's 64 KiB upload buffer) through HTTPSyncTransport to the stub server at
//     <base URL>, which the test has told to hold each answer. While they wait, a task of
//     this process ticks every 10 ms. Prints "pushes <n>", "failed <n>", "switches <n>"
//     (the process's context switches, voluntary and not, during the pushes), "cpu-ms <n>"
//     (its CPU time) and "max-gap-ms <n>" (the longest time between two ticks).
//
// The test runs it in a process of its own so that the rest of the suite's threads count
// in neither figure (docs/sync.md, "The HTTP client on Linux").
func httpWait(baseURL: String) async throws {
    guard let url = URL(string: baseURL) else { fail("http-wait: not a URL: \(baseURL)") }
    var configuration = HTTPSyncTransport.Configuration(baseURL: url, timeout: .seconds(120))
    configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 1)
    let transport = try HTTPSyncTransport(configuration: configuration)
    let credentials = SyncCredentials(vaultID: UUID(), deviceID: UUID(), deviceToken: "probe-token-0123456789abcdef")
    let envelopes = try (0..<100).map { _ in
        try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 7, count: 32), ciphertext: Data(repeating: 9, count: 1_024))
    }
    let request = SyncPushRequest(envelopes: envelopes)
    let pushes = 8

    let ticks = TickRecorder()
    let before = ResourceUsage.now()
    let ticker = ticks.start()
    let failed = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<pushes {
            group.addTask { (try? await transport.push(request, as: credentials)) == nil }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    let gap = ticks.stop()
    await ticker.value
    let after = ResourceUsage.now()
    let report = [
        "pushes \(pushes)", "failed \(failed)", "switches \(after.switches - before.switches)",
        "cpu-ms \((after.cpuMicroseconds - before.cpuMicroseconds) / 1_000)",
        "max-gap-ms \(gap.components.seconds * 1_000 + gap.components.attoseconds / 1_000_000_000_000_000)",
    ]
    FileHandle.standardOutput.write(Data((report.joined(separator: "\n") + "\n").utf8))
}

/// This process's context switches and CPU time so far (`getrusage`).
struct ResourceUsage {
    var switches: Int
    var cpuMicroseconds: Int

    static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func microseconds(_ time: timeval) -> Int { Int(time.tv_sec) * 1_000_000 + Int(time.tv_usec) }
        return ResourceUsage(switches: usage.ru_nvcsw + usage.ru_nivcsw,
                             cpuMicroseconds: microseconds(usage.ru_utime) + microseconds(usage.ru_stime))
    }
}
