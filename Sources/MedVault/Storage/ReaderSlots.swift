import Foundation

/// Decides which connection serves each read of a pool.
///
/// Until the first read connection exists, a read that finds the writer idle (no
/// write, no other read on it) runs on the writer: most apps read and write one
/// at a time, and then never pay for opening a second connection (its thread, its
/// key setup, its own parse of the schema, its page cache). The first read that
/// finds the writer busy opens a read connection, and from then on reads use only
/// read connections: an idle one when there is one, a new one while the pool has
/// fewer than its maximum, otherwise the least recently handed-out one (the read
/// then waits in that connection's line).
final class ReaderSlots: @unchecked Sendable {
    // Safety of @unchecked Sendable: `readers`, `busy`, `nextFallback` and
    // `writerUsers` are read and written only while holding `lock`; the actors they
    // hold are Sendable.
    private let lock = NSLock()
    private var readers: [ConnectionActor] = []
    private var busy: [Int] = []
    private var nextFallback = 0
    /// Writes, connection-level work and reads currently using the writer.
    private var writerUsers = 0
    private let maximum: Int
    private let makeReader: @Sendable (Int) -> ConnectionActor

    /// Where a read runs.
    enum Lease {
        /// On the writer connection, which was idle; give back with ``releaseWriter()``.
        case writer
        /// On read connection `index`; give back with ``release(_:)``.
        case reader(index: Int, ConnectionActor)
    }

    init(maximum: Int, makeReader: @escaping @Sendable (Int) -> ConnectionActor) {
        self.maximum = maximum
        self.makeReader = makeReader
    }

    /// The connection a read should use.
    func acquire() -> Lease {
        lock.lock(); defer { lock.unlock() }
        if readers.isEmpty && writerUsers == 0 {
            writerUsers += 1
            return .writer
        }
        if let index = busy.firstIndex(of: 0) {
            busy[index] += 1
            return .reader(index: index, readers[index])
        }
        if readers.count < maximum {
            let reader = makeReader(readers.count)
            readers.append(reader)
            busy.append(1)
            return .reader(index: readers.count - 1, reader)
        }
        let index = nextFallback % readers.count
        nextFallback += 1
        busy[index] += 1
        return .reader(index: index, readers[index])
    }

    func release(_ index: Int) {
        lock.lock(); defer { lock.unlock() }
        busy[index] -= 1
    }

    /// Counts a write (or other use of the writer) in, so that reads meanwhile go to
    /// read connections.
    func acquireWriter() {
        lock.lock(); defer { lock.unlock() }
        writerUsers += 1
    }

    /// Counts a use of the writer out.
    func releaseWriter() {
        lock.lock(); defer { lock.unlock() }
        writerUsers -= 1
    }

    /// Every reader opened so far.
    func all() -> [ConnectionActor] {
        lock.lock(); defer { lock.unlock() }
        return readers
    }
}
