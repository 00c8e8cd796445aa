// medvault-sync-load: the sync server's load benchmark (docs/sync-server-benchmarks.md).
//
// Starts a throwaway PostgreSQL and the real medvault-sync-server beside it, then
// 1. N simulated devices push and pull in closed loops for S seconds (requests/s,
//    p50/p99 latency per route, errors, and the CPU each process used);
// 2. a full clone of a clinic (10,000 patients, 100,000 sessions, 100,000 diagnoses
//    × scale) to a new device through the server, with the real sync engine.
// Its own executable target of the Server package: apps never resolve it.

import Foundation

let options: LoadOptions
do {
    options = try LoadOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

@Sendable func log(_ line: String) {
    FileHandle.standardError.write(Data("[sync-load] \(line)\n".utf8))
}

do {
    log("starting PostgreSQL")
    let postgres = try LoadPostgres()
    defer { postgres.stop() }
    let server = try await LoadServer(postgres: postgres, requestsPerSecond: 1_000_000)
    defer { server.stop() }

    log("device load: \(options.devices) devices for \(options.seconds) s")
    let processes = CPUWatch(server: server.pid, postmaster: postgres.postmaster())
    let load = DeviceLoad(baseURLs: [server.baseURL], devices: options.devices,
                          duration: .milliseconds(Int(options.seconds * 1_000)),
                          envelopesPerPush: options.envelopesPerPush, plaintextBytes: options.plaintextBytes)
    let loadResult = try await load.run()
    let cpu = processes.sample()
    let timings = await ServerTimings.scrape(server.baseURL)
    let serverErrors = server.standardError.split(separator: "\n").filter { $0.contains("error") }.count

    // The same load with a second instance over the same database, the devices spread
    // across both (the server keeps no state of its own between requests).
    log("device load on two instances")
    let second = try await LoadServer(postgres: postgres, requestsPerSecond: 1_000_000)
    defer { second.stop() }
    let twoInstances = try await DeviceLoad(baseURLs: [server.baseURL, second.baseURL], devices: options.devices,
                                            duration: .milliseconds(Int(options.seconds * 1_000)),
                                            envelopesPerPush: options.envelopesPerPush,
                                            plaintextBytes: options.plaintextBytes).run()
    let secondErrors = second.standardError.split(separator: "\n").filter { $0.contains("error") }.count

    // The same load once the database holds `storedEnvelopes` more (a server that has been
    // running a long time), against the same one instance.
    log("storing \(options.storedEnvelopes) envelopes in \(max(1, options.storedEnvelopes / 1_000)) vaults")
    let storeSeconds = try await seconds { try postgres.storeEnvelopes(options.storedEnvelopes) }
    log("device load against the stored envelopes")
    let stored = try await DeviceLoad(baseURLs: [server.baseURL], devices: options.devices,
                                      duration: .milliseconds(Int(options.seconds * 1_000)),
                                      envelopesPerPush: options.envelopesPerPush,
                                      plaintextBytes: options.plaintextBytes).run()

    let clone = try await CloneRun(baseURL: server.baseURL, postgres: postgres, patients: options.clonePatients,
                                   sessionsPerPatient: 10, log: log).run()
    let report = LoadReport(options: options, load: loadResult, cpu: cpu, timings: timings, serverErrorLines: serverErrors,
                            twoInstances: twoInstances, twoInstanceErrorLines: secondErrors,
                            stored: stored, storeSeconds: storeSeconds, clone: clone, envelopeRows: (try? postgres.psql("SELECT count(*) FROM envelopes")) ?? "?")
    let text = report.markdown()
    if let output = options.output {
        try Data(text.utf8).write(to: URL(fileURLWithPath: output))
        log("wrote \(output)")
    } else {
        print(text)
    }
    if !loadResult.errors.isEmpty { log("errors: \(loadResult.errors)") }
    if !twoInstances.errors.isEmpty { log("errors on two instances: \(twoInstances.errors)") }
    if !stored.errors.isEmpty { log("errors against the stored envelopes: \(stored.errors)") }
} catch {
    log("failed: \(error)")
    exit(1)
}
