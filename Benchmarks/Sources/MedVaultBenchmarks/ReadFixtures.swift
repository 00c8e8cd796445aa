import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// Read-only clinics shared by W3, W4 and the scale series: one file per size, built
/// once per run through raw C with MedVault's schema (``ClinicFixture``), then read by
/// both sides (the same file, the same OS page cache). Every patient has
/// ``sessionsPerPatient`` completed sessions, each with one diagnosis.
actor ReadFixtures {
    static let shared = ReadFixtures()
    static let sessionsPerPatient = 10

    struct Clinic: Sendable {
        let url: URL
        let key: [UInt8]
        let data: ClinicData
    }

    /// How the read clinics lay out their rows; both sides of W3, W4 and S share it.
    enum Layout {
        /// As W1 and an app's batch import write them: a patient, then its sessions.
        case datasetOrder
        /// Every patient, then every session in date order, as a clinic records them
        /// over months: one patient's sessions are scattered (a diagnostic, set with
        /// `MEDVAULT_BENCH_READ_LAYOUT=chronological`).
        case chronological
    }

    static let layout: Layout =
        ProcessInfo.processInfo.environment["MEDVAULT_BENCH_READ_LAYOUT"] == "chronological" ? .chronological
            : .datasetOrder

    private var clinics: [Int: Clinic] = [:]
    private var plainClinics: [Int: URL] = [:]
    private var fixture: ClinicFixture?

    /// The clinic of `patientCount` patients, built on first use.
    func clinic(patientCount: Int, context: BenchmarkContext) async throws -> Clinic {
        if let clinic = clinics[patientCount] { return clinic }
        let schema: ClinicFixture
        if let fixture { schema = fixture } else {
            schema = try await ClinicFixture.capture(in: context)
            fixture = schema
        }
        let data = ClinicData(patientCount: patientCount, sessionCount: patientCount * Self.sessionsPerPatient,
                              seed: context.seed)
        let key = context.databaseKey(salt: 0x5EAD).bytes
        let url = context.databaseURL("read-\(patientCount).db")
        let start = ContinuousClock.now
        // The plain clinic is written in dataset order: so is this one, or the two files
        // would differ in layout (10 pages for one patient's sessions instead of 2–3).
        try schema.build(at: url, key: .raw(key), data: data, datasetOrder: Self.layout == .datasetOrder)
        context.log(String(format: "built a read clinic of %d patients, %d sessions in %.1f s", patientCount,
                           data.sessions.count, (ContinuousClock.now - start).seconds))
        let clinic = Clinic(url: url, key: key, data: data)
        clinics[patientCount] = clinic
        return clinic
    }

    /// The same clinic on the plain schema (the "C plain" peer's file), built on first
    /// use with the clinic's key.
    func plainClinic(of clinic: Clinic, context: BenchmarkContext) throws -> URL {
        let count = clinic.data.patients.count
        if let url = plainClinics[count] { return url }
        let url = context.databaseURL("read-plain-\(count).db")
        let plain = try PlainClinic(at: url, key: clinic.key, create: true)
        switch Self.layout {
        case .datasetOrder: try plain.insertChunked(clinic.data.source, order: clinic.data.order)
        case .chronological: try plain.insertChronologically(clinic.data.source)
        }
        plainClinics[count] = url
        return url
    }

    /// Latencies (µs) of `call` over `inputs` after 50 untimed calls (a peer measured
    /// on its own, after the MedVault and same-SQL sides alternated).
    static func measure<Input>(_ inputs: [Input], _ call: (Input) throws -> Void) throws -> [Double] {
        for input in inputs.prefix(50) { try call(input) }
        return try inputs.map { input in try Stopwatch.seconds { try call(input) } * 1e6 }
    }

    /// Opens `clinic` as MedVault does (an existing file, its schema checked).
    static func openPool(_ clinic: Clinic) async throws -> VaultDatabase {
        let key = SecureBytes(copying: clinic.key)
        defer { key.wipe() }
        return try await VaultDatabase.open(at: clinic.url, key: key, mode: .openExisting,
                                           migrator: MedVaultSchema.migrator, keyIsAuthenticated: true)
    }
}

/// Runs two sides over the same list of inputs, alternating blocks of 50 (the side
/// that starts alternating too), after `warmUps` untimed calls per side; returns the
/// latencies in µs.
enum Alternating {
    static let blockSize = 50

    static func measure<Input: Sendable>(
        _ inputs: [Input], warmUps: Int,
        medVault: (Input) async throws -> Void,
        reference: (Input) throws -> Void
    ) async throws -> (medVault: [Double], reference: [Double]) {
        for input in inputs.prefix(warmUps) {
            try await medVault(input)
            try reference(input)
        }
        var a: [Double] = []
        var b: [Double] = []
        var start = 0
        var block = 0
        while start < inputs.count {
            let slice = inputs[start..<min(start + blockSize, inputs.count)]
            for side in (block.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                for input in slice {
                    if side == 0 {
                        a.append(try await Stopwatch.seconds { try await medVault(input) } * 1e6)
                    } else {
                        b.append(try Stopwatch.seconds { try reference(input) } * 1e6)
                    }
                }
            }
            start += slice.count
            block += 1
        }
        return (a, b)
    }
}
