import Foundation
import MedVaultCore
import Testing

@Suite struct LocalTimeTests {
    static let madrid = TimeZone(identifier: "Europe/Madrid") ?? .gmt
    static let newYork = TimeZone(identifier: "America/New_York") ?? .gmt

    func instant(_ date: String, _ hour: Int, _ minute: Int, _ zone: TimeZone) throws -> Int {
        Int(LocalTime.instant(on: try CalendarDate(iso8601: date), minutesSinceMidnight: hour * 60 + minute, in: zone)
            .timeIntervalSince1970)
    }

    func utc(_ text: String) -> Int {
        Int(ISO8601DateFormatter().date(from: text)?.timeIntervalSince1970 ?? -1)
    }

    @Test func ordinaryTimes() throws {
        #expect(try instant("2026-06-01", 8, 0, Self.madrid) == utc("2026-06-01T06:00:00Z"))
        #expect(try instant("2026-01-15", 8, 0, Self.madrid) == utc("2026-01-15T07:00:00Z"))
        #expect(try instant("2026-01-15", 23, 59, Self.newYork) == utc("2026-01-16T04:59:00Z"))
    }

    @Test func nonexistentTimesMoveForwardByTheGap() throws {
        #expect(try instant("2026-03-29", 2, 0, Self.madrid) == utc("2026-03-29T01:00:00Z"))  // = 03:00 CEST
        #expect(try instant("2026-03-29", 2, 30, Self.madrid) == utc("2026-03-29T01:30:00Z")) // = 03:30 CEST
        #expect(try instant("2026-03-29", 3, 0, Self.madrid) == utc("2026-03-29T01:00:00Z"))
        #expect(try instant("2026-03-29", 1, 59, Self.madrid) == utc("2026-03-29T00:59:00Z"))
        #expect(try instant("2026-03-08", 2, 30, Self.newYork) == utc("2026-03-08T07:30:00Z"))
    }

    @Test func repeatedTimesTakeTheFirstOccurrence() throws {
        #expect(try instant("2026-10-25", 2, 30, Self.madrid) == utc("2026-10-25T00:30:00Z"))
        #expect(try instant("2026-10-25", 3, 0, Self.madrid) == utc("2026-10-25T02:00:00Z"))
        #expect(try instant("2026-11-01", 1, 30, Self.newYork) == utc("2026-11-01T05:30:00Z"))
        #expect(try instant("2026-11-01", 2, 0, Self.newYork) == utc("2026-11-01T07:00:00Z"))
    }

    @Test func dayIntervalsAreTwentyThreeOrTwentyFiveHoursOnChangeDays() throws {
        func hours(_ date: String, _ zone: TimeZone) throws -> Double {
            let day = try CalendarDate(iso8601: date)
            let range = LocalTime.interval(from: day, through: day, in: zone)
            return range.upperBound.timeIntervalSince(range.lowerBound) / 3600
        }
        #expect(try hours("2026-03-29", Self.madrid) == 23)
        #expect(try hours("2026-10-25", Self.madrid) == 25)
        #expect(try hours("2026-03-08", Self.newYork) == 23)
        #expect(try hours("2026-11-01", Self.newYork) == 25)
        #expect(try hours("2026-06-01", Self.newYork) == 24)
        let week = LocalTime.interval(from: try CalendarDate(iso8601: "2026-03-23"),
                                      through: try CalendarDate(iso8601: "2026-03-29"), in: Self.madrid)
        #expect(week.upperBound.timeIntervalSince(week.lowerBound) == (7 * 24 - 1) * 3600)
    }
}
