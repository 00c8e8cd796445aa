import Foundation
import Hummingbird
import NIOCore

/// Request counts and latency histograms, served as Prometheus text at `GET /metrics`.
///
/// Labels are the matched route's template (`/v1/vaults/{vaultId}/envelopes`, never a
/// vault id, token, record key or envelope byte), the method (one of the API's four, or
/// `other`) and the status: their number is bounded, whatever clients send.
final class SyncMetrics: @unchecked Sendable {
    // @unchecked: every stored property is either immutable or only touched while
    // `lock` is held (see `record` and `text`).

    /// Histogram bucket bounds, in seconds.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// The route label of a request no route matched.
    static let unmatched = "unmatched"

    private struct CountKey: Hashable, Comparable {
        let route: String
        let method: String
        let status: Int

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.route, lhs.method, lhs.status) < (rhs.route, rhs.method, rhs.status)
        }
    }

    private struct HistogramKey: Hashable, Comparable {
        let route: String
        let method: String

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.route, lhs.method) < (rhs.route, rhs.method) }
    }

    private struct Histogram {
        var buckets = [Int](repeating: 0, count: SyncMetrics.buckets.count)
        var sum = 0.0
        var count = 0
    }

    private let lock = NSLock()
    private var counts: [CountKey: Int] = [:]
    private var histograms: [HistogramKey: Histogram] = [:]

    /// Records one answered request.
    func record(route: String?, method: HTTPRequest.Method, status: Int, seconds: Double) {
        // Hummingbird names the path of a request no route matched "NotFound".
        let route = route.flatMap { $0 == "NotFound" ? nil : Self.template($0) } ?? Self.unmatched
        let method = [.get, .post, .put, .delete].contains(method) ? method.rawValue : "other"
        lock.lock()
        defer { lock.unlock() }
        counts[CountKey(route: route, method: method, status: status), default: 0] += 1
        var histogram = histograms[HistogramKey(route: route, method: method)] ?? Histogram()
        for (index, bound) in Self.buckets.enumerated() where seconds <= bound { histogram.buckets[index] += 1 }
        histogram.sum += seconds
        histogram.count += 1
        histograms[HistogramKey(route: route, method: method)] = histogram
    }

    /// The Prometheus text exposition (format 0.0.4).
    func text() -> String {
        lock.lock()
        let counts = self.counts
        let histograms = self.histograms
        lock.unlock()
        var lines = [
            "# HELP medvault_sync_requests_total Requests answered, by route, method and status.",
            "# TYPE medvault_sync_requests_total counter",
        ]
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) {
            lines.append(#"medvault_sync_requests_total{route="\#(key.route)",method="\#(key.method)",status="\#(key.status)"} \#(value)"#)
        }
        lines += [
            "# HELP medvault_sync_request_duration_seconds Time to answer a request, by route and method.",
            "# TYPE medvault_sync_request_duration_seconds histogram",
        ]
        for (key, histogram) in histograms.sorted(by: { $0.key < $1.key }) {
            let labels = #"route="\#(key.route)",method="\#(key.method)""#
            for (bound, count) in zip(Self.buckets, histogram.buckets) {
                lines.append(#"medvault_sync_request_duration_seconds_bucket{\#(labels),le="\#(bound)"} \#(count)"#)
            }
            lines.append(#"medvault_sync_request_duration_seconds_bucket{\#(labels),le="+Inf"} \#(histogram.count)"#)
            lines.append("medvault_sync_request_duration_seconds_sum{\(labels)} \(histogram.sum)")
            lines.append("medvault_sync_request_duration_seconds_count{\(labels)} \(histogram.count)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `/v1/vaults/:vaultId/envelopes` → `/v1/vaults/{vaultId}/envelopes`; any character
    /// outside the route syntax (there is none in the API's routes) becomes `_`, so a
    /// label can never break the exposition format.
    static func template(_ path: String) -> String {
        let braced = path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }.joined(separator: "/")
        return String(braced.map { $0.isLetter || $0.isNumber || "/{}-_.".contains($0) ? $0 : "_" })
    }
}

/// Counts every request and times it, outside the error middleware so that it sees the
/// status an error became.
struct SyncMetricsMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext

    let metrics: SyncMetrics

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.record(route: context.endpointPath, method: request.method, status: response.status.code,
                           seconds: Self.seconds(since: start))
            return response
        } catch {
            metrics.record(route: context.endpointPath, method: request.method, status: 500,
                           seconds: Self.seconds(since: start))
            throw error
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
