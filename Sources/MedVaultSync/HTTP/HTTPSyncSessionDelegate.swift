import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore

/// The URLSession delegate of ``HTTPSyncTransport``: collects each answer with a size
/// limit (a larger answer is cancelled as it arrives, not read whole first), and refuses
/// every redirect, so a device token is never sent on to a host the configuration did
/// not name (the 3xx answer itself comes back and becomes `badResponse`).
final class HTTPSyncSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the only mutable state, `exchanges`, is read and written under `lock`
    // and nowhere else; URLSession calls the delegate on its own queue, tasks start on
    // the caller's thread, and both go through the lock.
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]

    private struct Exchange {
        let limit: Int
        let continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
        var data = Data()
        var response: HTTPURLResponse?
        var tooLarge = false
    }

    /// Runs `request` on `session` and returns the whole answer, at most `limit` bytes.
    ///
    /// A cancelled call ends with `CancellationError` at once, whatever URLSession does
    /// with the cancelled task: a task cancelled before it was resumed (the calling task
    /// already cancelled, or cancelled as the call starts) may never report completion,
    /// and the call would wait forever. The exchange is taken out of the table exactly
    /// once, by the completion or by the cancellation, under the lock.
    ///
    /// - Throws: `HTTPSyncFailure` for an answer over the limit; `CancellationError`;
    ///   URLSession's error otherwise.
    func data(for request: URLRequest, session: URLSession, limit: Int) async throws -> (Data, HTTPURLResponse) {
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.withLock { exchanges[id] = Exchange(limit: limit, continuation: continuation) }
                // Cancelled before the exchange was registered: the handler found nothing to end.
                if Task.isCancelled {
                    abandon(task)
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            abandon(task)
        }
    }

    /// Ends `task`'s call with `CancellationError`, if it has not ended yet, and cancels it.
    private func abandon(_ task: URLSessionTask) {
        let exchange = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier) }
        task.cancel()
        exchange?.continuation.resume(throwing: CancellationError())
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let allowed = lock.withLock { () -> Bool in
            guard var exchange = exchanges[dataTask.taskIdentifier] else { return false }
            exchange.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(exchange.limit) { exchange.tooLarge = true }
            exchanges[dataTask.taskIdentifier] = exchange
            return !exchange.tooLarge
        }
        completionHandler(allowed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = lock.withLock { () -> Bool in
            guard var exchange = exchanges[dataTask.taskIdentifier], !exchange.tooLarge else { return false }
            if exchange.data.count + data.count > exchange.limit {
                exchange.tooLarge = true
                exchange.data = Data()
            } else {
                exchange.data.append(data)
            }
            exchanges[dataTask.taskIdentifier] = exchange
            return exchange.tooLarge
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = lock.withLock({ exchanges.removeValue(forKey: task.taskIdentifier) }) else { return }
        if exchange.tooLarge {
            exchange.continuation.resume(throwing: HTTPSyncFailure(error: HTTPSyncErrors.http.answerTooLarge, retry: .never))
        } else if let error {
            exchange.continuation.resume(throwing: error)
        } else if let response = (exchange.response ?? task.response as? HTTPURLResponse) {
            exchange.continuation.resume(returning: (exchange.data, response))
        } else {
            exchange.continuation.resume(throwing: HTTPSyncFailure(
                error: HTTPSyncErrors.http.badResponse("the answer is not HTTP"), retry: .never))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
