// GRDBReference: the GRDB peer of MedVault's benchmarks, run by MedVaultBenchmarks as a
// child process (libsqlite3 here, libsqlcipher there: never in one binary). Reads one
// PeerRequest as JSON on standard input, writes one PeerResult as JSON on standard
// output; on failure writes the reason to standard error and exits with status 1.
import BenchmarkSupport
import Foundation

do {
    let input = FileHandle.standardInput.readDataToEndOfFile()
    let request = try JSONDecoder().decode(PeerRequest.self, from: input)
    let result = try GRDBPeer.run(request)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    FileHandle.standardOutput.write(try encoder.encode(result))
} catch {
    FileHandle.standardError.write(Data("GRDBReference: \(error)\n".utf8))
    exit(1)
}
