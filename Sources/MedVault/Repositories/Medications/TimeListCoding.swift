import Foundation
import MedVaultCore

/// How lists of `TimeOfDay` are stored: minutes since midnight, comma-separated,
/// in their original order (`"480,1200"`), plus, only when at least one time has a
/// label, a JSON array of the labels (`["Desayuno",null]`).
///
/// Labels are rare, so the common read path never touches a JSON decoder.
enum TimeListCoding {
    /// The stored form of `times`. Only valid times are stored (validation runs first).
    static func encode(_ times: [TimeOfDay]) -> (minutes: String, labels: String?) {
        let minutes = times.map { String($0.minutesSinceMidnight) }.joined(separator: ",")
        guard times.contains(where: { $0.label != nil }) else { return (minutes, nil) }
        let labels: [String?] = times.map(\.label)
        // Encoding an array of optional strings cannot fail.
        let data = (try? JSONEncoder().encode(labels)) ?? Data("[]".utf8)
        return (minutes, String(decoding: data, as: UTF8.self))
    }

    /// The times of a stored list.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the text is not a list of
    ///   minutes within a day, or the labels do not match it.
    static func decode(minutes: String, labels: String?) throws -> [TimeOfDay] {
        var times: [TimeOfDay] = []
        if !minutes.isEmpty {
            for part in minutes.split(separator: ",", omittingEmptySubsequences: false) {
                guard let value = Int(part), (0..<1440).contains(value) else {
                    throw MedVaultError(.corrupted, reason: "a stored time of day is malformed")
                }
                times.append(TimeOfDay(hour: value / 60, minute: value % 60))
            }
        }
        if let labels {
            guard let decoded = try? JSONDecoder().decode([String?].self, from: Data(labels.utf8)),
                  decoded.count == times.count
            else {
                throw MedVaultError(.corrupted, reason: "stored time labels are malformed")
            }
            for index in times.indices { times[index].label = decoded[index] }
        }
        return times
    }

    /// The bitmask of `days`: bit `rawValue - 1` (Monday is bit 0).
    static func mask(of days: Set<Weekday>) -> Int64 {
        days.reduce(0) { $0 | (1 << Int64($1.rawValue - 1)) }
    }

    /// The days of a bitmask.
    static func days(ofMask mask: Int64) -> Set<Weekday> {
        Set(Weekday.allCases.filter { mask & (1 << Int64($0.rawValue - 1)) != 0 })
    }
}
