import Foundation
import MedVault

/// The demo's last section: a dose logged by mistake is corrected (the stock and the
/// adherence follow, the previous value is kept), then a refill and the days of supply.
func showCorrectionAndRefill(store: any MedicationStore, metformin: Medication, patientID: UUID,
                             first: CalendarDate, last: CalendarDate, zone: TimeZone) async throws {
    print("")
    print("Corrections and refills")
    // Friday 08:00 was logged "skipped" by mistake: the patient did take it, at 08:10.
    let due = try instant("2026-03-13", "08:00", zone)
    guard let mistaken = try await store.doseLogs.list(medicationID: metformin.id, in: due..<due.addingTimeInterval(1)).first
    else { return }
    let before = try await store.get(metformin.id)
    let receipt = try await store.doseLogs.correct(
        mistaken.id,
        with: DoseLogCorrection(status: .taken, takenAt: try instant("2026-03-13", "08:10", zone),
                                reason: "logged the wrong button"),
        expectedVersion: mistaken.version)
    let unit = metformin.dosage.unit
    print("  Corrected Fri 2026-03-13 08:00 \(metformin.name): \(mistaken.status.rawValue) → "
          + "\(receipt.log.status.rawValue) at \(DemoFormat.time(receipt.log.takenAt ?? due, zone))")
    print("  Stock \(DemoFormat.quantity(before.inventory?.current ?? .zero, unit)) → "
          + "\(DemoFormat.quantity(receipt.medication.inventory?.current ?? .zero, unit))")
    let stats = try await store.adherence(forMedication: metformin.id, from: first, through: last, in: zone)
    print("  Adherence now: " + DemoFormat.adherence(stats).joined(separator: "  "))
    let history = try await store.doseLogs.history(of: mistaken.id)
    for revision in history {
        print("  History: was \(revision.previous.status.rawValue) (version \(revision.previous.version)), "
              + "\(revision.kind.rawValue): \(revision.reason ?? "")")
    }

    // A package of 60 from the pharmacy.
    let refill = try await store.refills.create(MedicationRefill(
        medicationID: metformin.id, quantity: 60, date: try CalendarDate(iso8601: MedicationData.today),
        expirationDate: try CalendarDate(iso8601: "2027-09-30")))
    print("  Refill \(refill.refill.date.iso8601): +\(DemoFormat.quantity(refill.refill.quantity, unit)), stock "
          + "\(DemoFormat.quantity(refill.medication.inventory?.current ?? .zero, unit))")
    if let supply = try await store.supply(forMedication: metformin.id, in: zone),
       let runOut = supply.runOutDate, let days = supply.daysOfSupply {
        print("  Lasts \(days) days at the current schedule: runs out on \(DemoFormat.weekday(runOut)) \(runOut.iso8601)")
    }
}
