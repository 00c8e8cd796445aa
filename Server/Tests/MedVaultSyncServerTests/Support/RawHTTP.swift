import Foundation
import NIOCore
import NIOPosix

/// Bytes sent to the server over a bare TCP connection: requests no HTTP client would
/// write (a chunk size that is not hex, a body cut short, conflicting lengths).
enum RawHTTP {
    /// Sends `request` (then, when `closeAfter`, closes the connection at once) and
    /// returns the status code of the answer, or `nil` when the server closed without one.
    static func status(port: Int, _ request: String, closeAfter: Bool = false) async throws -> Int? {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            if closeAfter { return nil }
            var received = ""
            for try await chunk in inbound {
                received += String(buffer: chunk)
                if let line = received.range(of: "\r\n") {
                    let parts = received[..<line.lowerBound].split(separator: " ")
                    return parts.count >= 2 ? Int(parts[1]) : nil
                }
            }
            return nil
        }
    }
}
