import Foundation

/// `data` as an async sequence of chunks of at most `chunkSize` bytes.
public struct DataChunks: AsyncSequence, Sendable {
    public typealias Element = Data
    /// The whole content.
    public let data: Data
    /// The largest chunk, in bytes (at least 1).
    public let chunkSize: Int

    /// Cuts `data` into chunks of `chunkSize` bytes (the last may be shorter).
    public init(data: Data, chunkSize: Int) {
        self.data = data
        self.chunkSize = Swift.max(1, chunkSize)
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let chunkSize: Int
        var offset: Int

        public mutating func next() async -> Data? {
            guard offset < data.count else { return nil }
            let start = data.startIndex + offset
            let end = Swift.min(start + chunkSize, data.endIndex)
            offset += end - start
            return data.subdata(in: start..<end)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(data: data, chunkSize: chunkSize, offset: 0)
    }
}
