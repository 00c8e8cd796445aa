import BenchmarkSupport
import Foundation

/// Runs the GRDB peer: spawns the `GRDBReference` executable built next to this one,
/// writes a ``PeerRequest`` as JSON to its standard input and decodes the
/// ``PeerResult`` from its standard output.
///
/// The peer lives in its own process because MedVault's libsqlcipher and GRDB's
/// libsqlite3 export the same `sqlite3_*` symbols: linked into one executable, one of
/// them would silently serve both (SQLCipher's is SQLite 3.15.2). Each answer carries
/// `sqlite_version()` and `PRAGMA cipher_version` from the child's own connection, and
/// ``run(_:)`` refuses an answer from an encrypted library.
enum GRDBPeerProcess {
    /// The child's executable: `GRDBReference` in this executable's folder.
    static var executable: URL {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("GRDBReference")
    }

    /// Runs one request to completion.
    ///
    /// - Throws: ``BenchmarkError`` when the child is missing, fails, answers garbage or
    ///   turns out to run SQLCipher rather than plain SQLite.
    static func run(_ request: PeerRequest) throws -> PeerResult {
        let url = executable
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw BenchmarkError("GRDBReference not found at \(url.path); build the Benchmarks package "
                                 + "(`make bench` builds every product)")
        }
        let process = Process()
        process.executableURL = url
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONEncoder().encode(request))
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a full pipe never blocks the child.
        let errorData = ThreadSafeData()
        let reader = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1_000) }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData.value, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchmarkError("GRDBReference \(request.workload.rawValue) exited with status "
                                 + "\(process.terminationStatus): \(message)")
        }
        let result: PeerResult
        do {
            result = try JSONDecoder().decode(PeerResult.self, from: data)
        } catch {
            throw BenchmarkError("GRDBReference \(request.workload.rawValue) answered unreadable JSON: \(error)")
        }
        guard result.cipherVersion.isEmpty else {
            throw BenchmarkError("GRDBReference runs SQLCipher \(result.cipherVersion), not plain SQLite")
        }
        return result
    }

    /// A figure the child must have reported.
    static func figure(_ result: PeerResult, _ name: String) throws -> Double {
        guard let value = result.figures[name] else {
            throw BenchmarkError("GRDBReference reported no figure \(name)")
        }
        return value
    }
}

/// Data written once by one thread and read by another after ``isSet`` is true.
///
/// `@unchecked Sendable`: every access to `stored` and `done` holds `lock`.
private final class ThreadSafeData: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Data()
    private var done = false

    func set(_ data: Data) { lock.withLock { stored = data; done = true } }
    var isSet: Bool { lock.withLock { done } }
    var value: Data { lock.withLock { stored } }
}
