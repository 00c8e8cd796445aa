import Foundation

/// Hands out the read connections of a pool: an idle one when there is one, a new
/// one while the pool has fewer than its maximum, otherwise the least recently
/// handed-out one (the read then waits in that connection's line).
final class ReaderSlots: @unchecked Sendable {
    // Safety of @unchecked Sendable: `readers`, `busy` and `nextFallback` are read and
    // written only while holding `lock`; the actors they hold are Sendable.
    private let lock = NSLock()
    private var readers: [ConnectionActor] = []
    private var busy: [Int] = []
    private var nextFallback = 0
    private let maximum: Int
    private let makeReader: @Sendable (Int) -> ConnectionActor

    init(maximum: Int, makeReader: @escaping @Sendable (Int) -> ConnectionActor) {
        self.maximum = maximum
        self.makeReader = makeReader
    }

    /// A reader and its index, to give back to ``release(_:)``.
    func acquire() -> (index: Int, reader: ConnectionActor) {
        lock.lock(); defer { lock.unlock() }
        if let index = busy.firstIndex(of: 0) {
            busy[index] += 1
            return (index, readers[index])
        }
        if readers.count < maximum {
            let reader = makeReader(readers.count)
            readers.append(reader)
            busy.append(1)
            return (readers.count - 1, reader)
        }
        let index = nextFallback % readers.count
        nextFallback += 1
        busy[index] += 1
        return (index, readers[index])
    }

    func release(_ index: Int) {
        lock.lock(); defer { lock.unlock() }
        busy[index] -= 1
    }

    /// Every reader opened so far.
    func all() -> [ConnectionActor] {
        lock.lock(); defer { lock.unlock() }
        return readers
    }
}
