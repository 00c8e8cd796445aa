import Foundation
import MedVaultCore

/// How a schedule's pauses, interval, taper steps and per-time amounts are stored.
///
/// - `regimen`: NULL when the schedule has none of pauses, interval or taper steps
///   (the usual case, so the common read path never touches a JSON decoder); else a
///   JSON object `{"pauses":[…],"interval":{…},"taperSteps":[…]}` whose dates are ISO
///   `YYYY-MM-DD` text and amounts decimal text.
/// - `time_amounts`: NULL when no time has an amount; else the amounts in
///   thousandths, comma-separated in the order of the times, empty for "the dosage".
enum ScheduleRegimenCoding {
    struct Regimen: Codable {
        var pauses: [SchedulePause] = []
        var interval: DayInterval?
        var taperSteps: [TaperStep] = []

        init() {}

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            pauses = try c.decodeIfPresent([SchedulePause].self, forKey: .pauses) ?? []
            interval = try c.decodeIfPresent(DayInterval.self, forKey: .interval)
            taperSteps = try c.decodeIfPresent([TaperStep].self, forKey: .taperSteps) ?? []
        }
    }

    /// The `regimen` column of `schedule`.
    static func encode(_ schedule: MedicationSchedule) -> String? {
        guard !schedule.pauses.isEmpty || schedule.interval != nil || !schedule.taperSteps.isEmpty else { return nil }
        var regimen = Regimen()
        regimen.pauses = schedule.pauses
        regimen.interval = schedule.interval
        regimen.taperSteps = schedule.taperSteps
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Dates, integers and decimal strings always encode.
        let data = (try? encoder.encode(regimen)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The regimen of a stored `regimen` column.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the text does not decode.
    static func decode(_ text: String?) throws -> Regimen {
        guard let text else { return Regimen() }
        guard let regimen = try? JSONDecoder().decode(Regimen.self, from: Data(text.utf8)) else {
            throw MedVaultError(.corrupted, reason: "a stored schedule regimen is malformed")
        }
        return regimen
    }

    /// The `time_amounts` column of `times`.
    static func encodeAmounts(_ times: [TimeOfDay]) -> String? {
        guard times.contains(where: { $0.amount != nil }) else { return nil }
        return times.map { $0.amount.map { String($0.thousandths) } ?? "" }.joined(separator: ",")
    }

    /// Sets the amounts of a stored `time_amounts` column on `times`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the list does not match the times.
    static func decodeAmounts(_ text: String?, into times: inout [TimeOfDay]) throws {
        guard let text else { return }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == times.count else {
            throw MedVaultError(.corrupted, reason: "stored time amounts are malformed")
        }
        for (index, part) in parts.enumerated() where !part.isEmpty {
            guard let thousandths = Int64(part) else {
                throw MedVaultError(.corrupted, reason: "stored time amounts are malformed")
            }
            times[index].amount = MedicationQuantity(thousandths: thousandths)
        }
    }
}
