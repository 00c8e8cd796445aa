import Foundation
import MedVault

/// A record read as JSON from a file or standard input (`patients add --json`,
/// `sessions add --json`): at most 1 MiB, one object, only the keys the command knows.
enum JSONInput {
    /// The largest document read (a record is well under a kilobyte).
    static let maximumByteCount = 1 << 20

    /// Reads the document: `-` for standard input (what is left of it after the
    /// password line, with `--password-stdin`), otherwise a file path.
    static func read(_ source: String) throws -> Data {
        let handle: FileHandle
        if source == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: source) else {
                let exists = FileManager.default.fileExists(atPath: source)
                throw CLIError(status: exists ? ExitCodes.accessDenied : ExitCodes.notFound,
                               message: "\(source): cannot open the JSON input")
            }
            handle = opened
        }
        defer { if source != "-" { try? handle.close() } }
        var data = Data()
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 64 * 1024)
            } catch {
                throw CLIError(status: ExitCodes.failure, message: "cannot read the JSON input")
            }
            guard let chunk, !chunk.isEmpty else { break }
            data += chunk
            guard data.count <= maximumByteCount else { throw invalid("the JSON input is larger than 1 MiB") }
        }
        return data
    }

    /// The object in `data`, whose keys must all be among `keys`.
    ///
    /// - Parameter what: What the object describes, for the message ("the patient").
    /// - Throws: ``CLIError`` with status ``ExitCodes/invalidInput`` naming a key given
    ///   twice or the first unknown key (escaped, at most 64 characters), never a value.
    static func object(_ data: Data, of what: String, keys: [String]) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw invalid("the JSON input is not valid JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw invalid("the JSON input must be one object with \(what)'s fields")
        }
        if let repeated = StrictJSON.repeatedKey(in: data) {
            throw invalid("the JSON input has the field \"\(repeated)\" twice")
        }
        let known = Set(keys)
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw invalid("the JSON input has an unknown field \"\(TextSafety.escaped(String(unknown.prefix(64))))\"; "
                          + "known fields: \(keys.joined(separator: ", "))")
        }
        return fields
    }

    static func invalid(_ message: String) -> CLIError {
        CLIError(status: ExitCodes.invalidInput, message: message)
    }
}
