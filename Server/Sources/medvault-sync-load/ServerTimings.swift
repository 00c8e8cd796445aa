import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server's own view of the load, from its `GET /metrics`: time inside the server
/// per route (handler, database), to set against what the devices measured.
struct ServerTimings: Sendable {
    /// Mean seconds inside the server, and requests, by "METHOD route".
    var routes: [String: (mean: Double, count: Int)] = [:]

    static func scrape(_ baseURL: URL) async -> ServerTimings {
        var timings = ServerTimings()
        var request = URLRequest(url: baseURL.appendingPathComponent("metrics"))
        request.setValue("Bearer \(LoadServer.metricsToken)", forHTTPHeaderField: "Authorization")
        guard let (data, _) = try? await URLSession.shared.data(for: request) else {
            return timings
        }
        var sums: [String: Double] = [:]
        var counts: [String: Int] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            for (suffix, isSum) in [("_sum{", true), ("_count{", false)] {
                guard line.hasPrefix("medvault_sync_request_duration_seconds" + suffix),
                      let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}"),
                      let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
                else { continue }
                let labels = line[line.index(after: open)..<close]
                let parts = Dictionary(uniqueKeysWithValues: labels.split(separator: ",").compactMap { pair in
                    let halves = pair.split(separator: "=", maxSplits: 1)
                    return halves.count == 2 ? (String(halves[0]), halves[1].trimmingCharacters(in: ["\""])) : nil
                })
                let key = "\(parts["method"] ?? "?") \(parts["route"] ?? "?")"
                if isSum { sums[key] = value } else { counts[key] = Int(value) }
            }
        }
        for (key, count) in counts where count > 0 {
            timings.routes[key] = ((sums[key] ?? 0) / Double(count), count)
        }
        return timings
    }
}
