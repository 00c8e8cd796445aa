import Foundation
import Hummingbird
import NIOCore
import Prometheus

/// Request counts and latency histograms, served as Prometheus text at `GET /metrics`,
/// kept by swift-prometheus (`PrometheusCollectorRegistry`): the exposition format,
/// label escaping and histogram arithmetic are the library's, not this server's.
///
/// Labels are the matched route's template (`/v1/vaults/{vaultId}/envelopes`, never a
/// vault id, token, record key or envelope byte), the method (one of the API's four, or
/// `other`) and the status: their number is bounded, whatever clients send.
final class SyncMetrics: Sendable {
    /// Histogram bucket bounds: 1 ms … 10 s.
    static let buckets: [Duration] = [
        .milliseconds(1), .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2_500), .seconds(5), .seconds(10),
    ]
    /// The route label of a request no route matched.
    static let unmatched = "unmatched"

    // Computed: swift-prometheus's descriptor is not `Sendable`, so it cannot be a stored static.
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "medvault", subsystem: "sync", metricName: "requests", unitName: "total",
                             helpText: "Requests answered, by route, method and status.")
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "medvault", subsystem: "sync", metricName: "request_duration",
                             unitName: "seconds", helpText: "Time to answer a request, by route and method.")
    }

    private let registry = PrometheusCollectorRegistry()

    /// Records one answered request.
    func record(route: String?, method: HTTPRequest.Method, status: Int, duration: Duration) {
        // Hummingbird names the path of a request no route matched "NotFound".
        let route = route.flatMap { $0 == "NotFound" ? nil : Self.template($0) } ?? Self.unmatched
        let method = [.get, .post, .put, .delete].contains(method) ? method.rawValue : "other"
        registry.makeCounter(descriptor: Self.requests,
                             labels: [("route", route), ("method", method), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Self.duration, labels: [("route", route), ("method", method)],
                                       buckets: Self.buckets).record(duration)
    }

    /// The Prometheus text exposition (format 0.0.4).
    func text() -> String {
        registry.emitToString()
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
                           duration: ContinuousClock.now - start)
            return response
        } catch {
            metrics.record(route: context.endpointPath, method: request.method, status: 500,
                           duration: ContinuousClock.now - start)
            throw error
        }
    }
}
