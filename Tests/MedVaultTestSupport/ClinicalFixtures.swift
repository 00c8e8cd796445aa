import Foundation
import MedVaultCore
import Testing

/// A clock that starts at `start` and moves forward one millisecond on every reading,
/// so successive records get distinct, increasing timestamps. `advance` jumps ahead.
package final class SteppingClock: Sendable {
    // Safety: `state` is only touched while `lock` is held.
    private nonisolated(unsafe) var state: Int64
    private let lock = NSLock()

    package init(start: Date = ClinicalFixtures.now) {
        state = start.millisecondsSince1970
    }

    package func next() -> Date {
        lock.lock()
        defer { lock.unlock() }
        state += 1
        return Date(millisecondsSince1970: state)
    }

    /// The most recent reading (no step).
    package var current: Date {
        lock.lock()
        defer { lock.unlock() }
        return Date(millisecondsSince1970: state)
    }

    package func advance(seconds: Int64) {
        lock.lock()
        defer { lock.unlock() }
        state += seconds * 1000
    }

    package var recordClock: RecordClock {
        RecordClock { self.next() }
    }
}

package enum ClinicalFixtures {
    /// 2025-06-15T10:00:00Z.
    package static let now = Date(timeIntervalSince1970: 1_749_981_600)

    /// A marker put in every field of invalid input: it must never appear in an error.
    package static let marker = "ZZMARKERZZ"

    package static func date(_ iso: String) -> CalendarDate {
        // The fixtures only pass literal, valid dates.
        (try? CalendarDate(iso8601: iso)) ?? CalendarDate(dayNumber: 0)
    }

    package static func patient(
        _ first: String = "Ana", _ last: String = "Ruiz", born: String = "1980-05-17", id: UUID = UUID(),
        nationalId: String? = nil, email: String? = nil, phone: String? = nil
    ) -> Patient {
        Patient(id: id, firstName: first, lastName: last, dateOfBirth: date(born),
                nationalId: nationalId, email: email, phoneNumber: phone)
    }

    package static let snapshot = ICD11Snapshot(
        code: "6A70", title: "Single episode depressive disorder",
        titleEs: "Trastorno depresivo de episodio único",
        uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01")

    package static let otherSnapshot = ICD11Snapshot(
        code: "6B00", title: "Generalised anxiety disorder", titleEs: nil,
        uri: "https://id.who.int/icd/release/11/2024-01/mms/1712535455", releaseVersion: "2024-01")
}

/// Runs `body`, expecting a `MedVaultError` with `code` (and `field`, when given).
/// Also checks the error's description never contains ``ClinicalFixtures/marker``.
@discardableResult
package func expectMedVaultError<T>(
    _ code: MedVaultError.Code, field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> MedVaultError? {
    do {
        _ = try await body()
        Issue.record("expected MedVaultError.\(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as MedVaultError {
        #expect(error.code == code, sourceLocation: sourceLocation)
        if let field {
            #expect(error.field == field, sourceLocation: sourceLocation)
        }
        #expect(!String(describing: error).contains(ClinicalFixtures.marker), sourceLocation: sourceLocation)
        #expect(!error.localizedDescription.contains(ClinicalFixtures.marker), sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected MedVaultError.\(code), got another error", sourceLocation: sourceLocation)
        return nil
    }
}
