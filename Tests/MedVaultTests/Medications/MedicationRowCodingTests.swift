import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// The stored forms of times, weekdays, frequencies and range bounds.
@Suite("SQLCipher medication row coding")
struct MedicationRowCodingTests {
    @Test func timeListsKeepOrderAndLabels() throws {
        let times = [TimeOfDay(hour: 20), TimeOfDay(hour: 8, minute: 5, label: "Desayuno, \"con\" leche"), TimeOfDay(hour: 0)]
        let stored = TimeListCoding.encode(times)
        #expect(stored.minutes == "1200,485,0")
        #expect(try TimeListCoding.decode(minutes: stored.minutes, labels: stored.labels) == times)
        #expect(TimeListCoding.encode([TimeOfDay(hour: 8)]).labels == nil)
        #expect(try TimeListCoding.decode(minutes: "", labels: nil).isEmpty)
        for (minutes, labels) in [("8:00", nil), ("-1", nil), ("1440", nil), ("1,,2", nil), ("1", "[1]"), ("1", "[null,null]")] as [(String, String?)] {
            #expect(throws: MedVaultError(.corrupted, reason: labels == nil
                ? "a stored time of day is malformed" : "stored time labels are malformed")) {
                _ = try TimeListCoding.decode(minutes: minutes, labels: labels)
            }
        }
    }

    @Test func weekdaysAreABitmask() {
        #expect(TimeListCoding.mask(of: []) == 0)
        #expect(TimeListCoding.mask(of: [.monday, .sunday]) == 0b100_0001)
        #expect(TimeListCoding.mask(of: Set(Weekday.allCases)) == 127)
        for days in [Set<Weekday>(), [.wednesday], [.monday, .friday, .saturday], Set(Weekday.allCases)] {
            #expect(TimeListCoding.days(ofMask: TimeListCoding.mask(of: days)) == days)
        }
    }

    @Test func everyFrequencyRoundTripsThroughItsColumns() throws {
        let frequencies: [MedicationFrequency] = [
            .asNeeded, .timesPerDay(3),
            .everyNHours(8, startingAt: TimeOfDay(hour: 6, minute: 30, label: "Primera")),
            .specificTimes([TimeOfDay(hour: 22), TimeOfDay(hour: 7, label: "Ayunas")]),
        ]
        for frequency in frequencies {
            let columns = FrequencyColumns(frequency)
            let read = try FrequencyColumns(kind: columns.kind, count: columns.count,
                                            times: columns.times, labels: columns.labels).frequency
            #expect(read == frequency)
        }
    }

    @Test func millisecondBoundsMatchDateComparisons() {
        let base = MT.utc("2026-05-20T10:00:00Z")
        for offset in [0, 0.0004, 0.001, 0.0015, -0.0004, 0.9999] {
            let bound = base.addingTimeInterval(offset)
            let m = DoseLogRow.millisecondBound(bound)
            #expect(Date(millisecondsSince1970: m) >= bound)
            #expect(Date(millisecondsSince1970: m - 1) < bound)
        }
        #expect(DoseLogRow.millisecondBound(.distantPast) < DoseLogRow.millisecondBound(base))
        #expect(DoseLogRow.millisecondBound(Date(timeIntervalSince1970: 1e300)) == 1_000_000_000_000_000)
        #expect(DoseLogRow.millisecondBound(Date(timeIntervalSince1970: -1e300)) == -1_000_000_000_000_000)
    }
}
