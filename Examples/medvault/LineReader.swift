import Foundation

/// Reads secret lines from a file descriptor one byte at a time, so nothing past the
/// line end is consumed and no copy lingers in a buffer we do not wipe.
enum LineReader {
    /// The longest line accepted, in bytes.
    static let maximumLength = 4096

    /// Reads one line, without its `\n` (and a `\r` before it).
    ///
    /// - Returns: The bytes, or `nil` when the input ended before any byte.
    /// - Throws: ``CLIError`` on a read error or an over-long line.
    static func readLine(from descriptor: Int32) throws -> [UInt8]? {
        var line: [UInt8] = []
        // The whole accepted length up front: an array that grows leaves the secret in the
        // buffer it outgrew, which nobody wipes.
        line.reserveCapacity(maximumLength)
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                wipe(&line)
                throw CLIError(status: ExitCodes.failure, message: "cannot read the secret (errno \(code))")
            }
            if count == 0 {
                if line.isEmpty { return nil }
                break
            }
            if byte == UInt8(ascii: "\n") { break }
            guard line.count < maximumLength else {
                wipe(&line)
                throw CLIError(status: ExitCodes.invalidInput, message: "a secret line is longer than \(maximumLength) bytes")
            }
            line.append(byte)
        }
        byte = 0
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }

    /// Splits `bytes` into lines as ``readLine(from:)`` would.
    static func lines(of bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        for index in lines.indices where lines[index].last == UInt8(ascii: "\r") {
            lines[index].removeLast()
        }
        return lines
    }

    /// Zeroes `bytes` in place.
    static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
