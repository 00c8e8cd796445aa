import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Every field of every record of the conformance fixtures either is found, with its
/// value, at its place in the FHIR export, or is listed in ``noFHIRHome`` with the
/// reason, and that list is the one docs/medico-legal.md documents. A field added to a
/// record later fails this test until it is mapped or documented.
@Suite("FHIR R4 export: the field map")
struct FHIRFieldMapTests {
    /// The fields with no FHIR R4 home (or only a partial one), as documented.
    static let noFHIRHome: Set<String> = [
        "Patient.createdAt", "Patient.version", "Patient.deletedAt",
        "ClinicalSession.version",
        "Diagnosis.createdAt", "Diagnosis.version", "ICD11Snapshot.uri",
        "Attachment.sha256", "Attachment.version",
        "Medication.form", "Medication.inventory", "Medication.version",
        "MedicationSchedule.id", "MedicationSchedule.timeZoneIdentifier", "MedicationSchedule.createdAt",
        "MedicationSchedule.updatedAt", "MedicationSchedule.version", "TimeOfDay.label",
        "DoseLog.createdAt", "DoseLog.version",
        "Professional.createdAt", "Professional.version",
        "Medication.strength", "Medication.deactivatedAt",
        "MedicationSchedule.seriesID", "MedicationSchedule.pauses", "MedicationSchedule.taperSteps",
        "MedicationSchedule.reminders", "TimeOfDay.amount",
    ]

    static let docURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/medico-legal.md")

    /// The value at a dotted path (`name.0.given.0`).
    static func lookup(_ value: FHIRJSON?, _ path: String) -> FHIRJSON? {
        var current = value
        for part in path.split(separator: ".") {
            if let index = Int(part) {
                let elements = current?.arrayValue ?? []
                current = index < elements.count ? elements[index] : nil
            } else {
                current = current?[String(part)]
            }
        }
        return current
    }

    static func text(_ value: FHIRJSON?) -> String? {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n
        case .bool(let b)?: b ? "true" : "false"
        default: nil
        }
    }

    static func base64(_ text: String?) -> String { Data((text ?? "").utf8).base64EncodedString() }
    static func instant(_ date: Date?) -> String { date.map(ISO8601Milliseconds.string(from:)) ?? "-" }
    static func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }
    static func labels(_ value: Any, _ type: String) -> [String] {
        Mirror(reflecting: value).children.compactMap { $0.label.map { "\(type).\($0)" } }
    }

    final class Checks {
        var mapped = Set<String>()
        func check(_ field: String, _ resource: FHIRJSON?, _ path: String, _ expected: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(resource != nil, "\(field): no resource", sourceLocation: sourceLocation)
            #expect(FHIRFieldMapTests.text(FHIRFieldMapTests.lookup(resource, path)) == expected,
                    "\(field) → \(path)", sourceLocation: sourceLocation)
            mapped.insert(field)
        }
    }

    @Test("Every field of the fixtures maps to FHIR with its value, or is documented as having no FHIR home")
    func everyFieldIsMappedOrDocumented() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, patientID) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let record = try await vault.exportRecord(of: patientID)
            let professional = try #require(try await vault.professional.get())
            let resources = FHIRExport(records: [record], practitioner: professional).resources
            func find(_ type: String, _ id: String) -> FHIRJSON? {
                resources.first { $0["resourceType"]?.stringValue == type && $0["id"]?.stringValue == id }
            }
            let c = Checks()
            var all = Set<String>()

            let p = record.patient
            all.formUnion(Self.labels(p, "Patient"))
            let patient = find("Patient", Self.id(p.id))
            c.check("Patient.id", patient, "id", Self.id(p.id))
            c.check("Patient.firstName", patient, "name.0.given.0", p.firstName)
            c.check("Patient.lastName", patient, "name.0.family", p.lastName)
            c.check("Patient.dateOfBirth", patient, "birthDate", p.dateOfBirth.iso8601)
            c.check("Patient.biologicalSex", patient, "gender", "male")
            c.check("Patient.nationalId", patient, "identifier.0.value", p.nationalId ?? "-")
            c.check("Patient.email", patient, "telecom.0.value", p.email ?? "-")
            c.check("Patient.phoneNumber", patient, "telecom.1.value", p.phoneNumber ?? "-")
            c.check("Patient.address", patient, "address.0.text", p.address ?? "-")
            c.check("Patient.updatedAt", patient, "meta.lastUpdated", Self.instant(p.updatedAt))
            #expect(Self.text(Self.lookup(patient, "active")) == "true", "deletedAt: only as Patient.active")

            all.formUnion(Self.labels(professional, "Professional"))
            let practitioner = find("Practitioner", Self.id(professional.id))
            c.check("Professional.id", practitioner, "id", Self.id(professional.id))
            c.check("Professional.fullName", practitioner, "name.0.text", professional.fullName)
            c.check("Professional.licenseNumber", practitioner, "identifier.0.value", professional.licenseNumber)
            c.check("Professional.specialty", practitioner, "qualification.0.code.text", professional.specialty)
            c.check("Professional.email", practitioner, "telecom.0.value", professional.email ?? "-")
            c.check("Professional.preferredLanguage", practitioner, "communication.0.coding.0.code",
                    professional.preferredLanguage)
            c.check("Professional.updatedAt", practitioner, "meta.lastUpdated", Self.instant(professional.updatedAt))

            let signed = try #require(record.sessions.first { $0.signature != nil })
            let s = signed.session
            all.formUnion(Self.labels(s, "ClinicalSession"))
            let encounter = find("Encounter", Self.id(s.id))
            c.check("ClinicalSession.id", encounter, "id", Self.id(s.id))
            c.check("ClinicalSession.patientID", encounter, "subject.reference", "Patient/\(Self.id(s.patientID))")
            c.check("ClinicalSession.date", encounter, "period.start", Self.instant(s.date))
            c.check("ClinicalSession.type", encounter, "type.0.text", s.type.rawValue)
            c.check("ClinicalSession.durationMinutes", encounter, "length.value", "\(s.durationMinutes)")
            c.check("ClinicalSession.status", encounter, "status", "planned")
            c.check("ClinicalSession.chiefComplaint", encounter, "reasonCode.0.text", s.chiefComplaint ?? "-")
            c.check("ClinicalSession.updatedAt", encounter, "meta.lastUpdated", Self.instant(s.updatedAt))
            let notes = find("DocumentReference", FHIRMapping.derivedID("notes", s.id))
            c.check("ClinicalSession.notes", notes, "content.0.attachment.data", Self.base64(s.notes))
            let plan = find("CarePlan", FHIRMapping.derivedID("plan", s.id))
            c.check("ClinicalSession.treatmentPlan", plan, "description", s.treatmentPlan ?? "-")
            c.check("ClinicalSession.createdAt", plan, "created", Self.instant(s.createdAt))

            let d = try #require(signed.diagnoses.first { $0.clinicalNotes != nil })
            all.formUnion(Self.labels(d, "Diagnosis"))
            all.formUnion(Self.labels(d.snapshot, "ICD11Snapshot"))
            let condition = find("Condition", Self.id(d.id))
            c.check("Diagnosis.id", condition, "id", Self.id(d.id))
            c.check("Diagnosis.sessionID", condition, "encounter.reference", "Encounter/\(Self.id(d.sessionID))")
            c.check("Diagnosis.snapshot", condition, "code.coding.0.system", "http://id.who.int/icd/release/11/mms")
            c.check("ICD11Snapshot.code", condition, "code.coding.0.code", d.snapshot.code)
            c.check("ICD11Snapshot.title", condition, "code.coding.0.display", d.snapshot.title)
            c.check("ICD11Snapshot.titleEs", condition, "code.coding.0._display.extension.0.extension.1.valueString",
                    d.snapshot.titleEs ?? "-")
            c.check("ICD11Snapshot.releaseVersion", condition, "code.coding.0.version", d.snapshot.releaseVersion)
            let listed = Self.lookup(encounter, "diagnosis")?.arrayValue
                .first { Self.text($0["condition"]?["reference"]) == "Condition/\(Self.id(d.id))" }
            c.check("Diagnosis.diagnosisType", listed, "use.text", d.diagnosisType.rawValue)
            c.check("Diagnosis.severity", condition, "severity.text", d.severity?.rawValue ?? "-")
            c.check("Diagnosis.clinicalNotes", condition, "note.0.text", d.clinicalNotes ?? "-")
            c.check("Diagnosis.diagnosedAt", condition, "recordedDate", Self.instant(d.diagnosedAt))
            c.check("Diagnosis.updatedAt", condition, "meta.lastUpdated", Self.instant(d.updatedAt))

            let a = try #require(signed.attachments.first)
            all.formUnion(Self.labels(a, "Attachment"))
            let document = find("DocumentReference", Self.id(a.id))
            c.check("Attachment.id", document, "id", Self.id(a.id))
            c.check("Attachment.sessionID", document, "context.encounter.0.reference", "Encounter/\(Self.id(a.sessionID))")
            c.check("Attachment.fileName", document, "content.0.attachment.title", a.fileName)
            c.check("Attachment.mimeType", document, "content.0.attachment.contentType", a.mimeType)
            c.check("Attachment.byteCount", document, "content.0.attachment.size", "\(a.byteCount)")
            c.check("Attachment.createdAt", document, "date", Self.instant(a.createdAt))
            c.check("Attachment.updatedAt", document, "meta.lastUpdated", Self.instant(a.updatedAt))

            let signature = try #require(signed.signature)
            all.formUnion(Self.labels(signature, "SessionSignature"))
            let provenance = find("Provenance", FHIRMapping.derivedID("signature", s.id))
            c.check("SessionSignature.sessionID", provenance, "target.0.reference", "Encounter/\(Self.id(s.id))")
            c.check("SessionSignature.professionalID", provenance, "agent.0.who.reference",
                    "Practitioner/\(Self.id(signature.professionalID))")
            c.check("SessionSignature.professionalName", provenance, "agent.0.who.display", signature.professionalName)
            c.check("SessionSignature.licenseNumber", provenance, "signature.0.who.identifier.value",
                    signature.licenseNumber)
            c.check("SessionSignature.signedAt", provenance, "recorded", Self.instant(signature.signedAt))
            c.check("SessionSignature.contentSHA256", provenance, "signature.0.extension.2.valueBase64Binary",
                    Data(signature.contentSHA256.bytes).base64EncodedString())
            c.check("SessionSignature.signatureBytes", provenance, "signature.0.data",
                    try #require(signature.signatureBytes).base64EncodedString())
            c.check("SessionSignature.signerPublicKey", provenance, "signature.0.extension.0.valueBase64Binary",
                    try #require(signature.signerPublicKey).base64EncodedString())
            c.check("SessionSignature.encodingVersion", provenance, "policy.0", "urn:medvault:session-signature:v1")

            let addendum = try #require(signed.addenda.last)
            all.formUnion(Self.labels(addendum, "SessionAddendum"))
            let amendment = find("DocumentReference", Self.id(addendum.id))
            c.check("SessionAddendum.id", amendment, "id", Self.id(addendum.id))
            c.check("SessionAddendum.sessionID", amendment, "context.encounter.0.reference", "Encounter/\(Self.id(s.id))")
            c.check("SessionAddendum.authorID", amendment, "author.0.reference", "Practitioner/\(Self.id(addendum.authorID))")
            c.check("SessionAddendum.authorName", amendment, "author.0.display", addendum.authorName)
            c.check("SessionAddendum.createdAt", amendment, "date", Self.instant(addendum.createdAt))
            c.check("SessionAddendum.reason", amendment, "description", addendum.reason)
            c.check("SessionAddendum.text", amendment, "content.0.attachment.data", Self.base64(addendum.text))
            #expect(Self.text(Self.lookup(amendment, "relatesTo.0.code")) == "appends")

            let mr = try #require(record.medications.first)
            let m = mr.medication
            all.formUnion(Self.labels(m, "Medication"))
            all.formUnion(Self.labels(m.dosage, "Dosage"))
            let statement = find("MedicationStatement", Self.id(m.id))
            c.check("Medication.id", statement, "id", Self.id(m.id))
            c.check("Medication.patientID", statement, "subject.reference", "Patient/\(Self.id(m.patientID))")
            c.check("Medication.name", statement, "medicationCodeableConcept.text", m.name)
            c.check("Medication.genericName", statement, "medicationCodeableConcept.coding.0.display", m.genericName ?? "-")
            c.check("Medication.dosage", statement, "dosage.0.doseAndRate.0.doseQuantity.value", "1.5")
            c.check("Dosage.amount", statement, "dosage.0.doseAndRate.0.doseQuantity.value", m.dosage.amount.description)
            c.check("Dosage.unit", statement, "dosage.0.doseAndRate.0.doseQuantity.unit", m.dosage.unit.rawValue)
            c.check("Medication.route", statement, "dosage.0.route.text", m.route.rawValue)
            c.check("Medication.frequency", statement, "dosage.0.timing.repeat.frequency", "2")
            c.check("Medication.instructions", statement, "dosage.0.text", m.instructions ?? "-")
            c.check("Medication.startDate", statement, "effectivePeriod.start", m.startDate.iso8601)
            c.check("Medication.endDate", statement, "effectivePeriod.end", m.endDate?.iso8601 ?? "-")
            c.check("Medication.isActive", statement, "status", "active")
            c.check("Medication.createdAt", statement, "dateAsserted", Self.instant(m.createdAt))
            c.check("Medication.updatedAt", statement, "meta.lastUpdated", Self.instant(m.updatedAt))
            let request = find("MedicationRequest", FHIRMapping.derivedID("request", m.id))
            c.check("Medication.requiresPrescription", request, "intent", "order")

            let schedule = try #require(mr.schedules.first)
            all.formUnion(Self.labels(schedule, "MedicationSchedule"))
            all.formUnion(Self.labels(schedule.times[0], "TimeOfDay"))
            c.check("MedicationSchedule.medicationID", statement, "dosage.1.timing.repeat.timeOfDay.0", "08:30:00")
            c.check("MedicationSchedule.times", statement, "dosage.1.timing.repeat.timeOfDay.0", "08:30:00")
            c.check("TimeOfDay.hour", statement, "dosage.1.timing.repeat.timeOfDay.0", "08:30:00")
            c.check("TimeOfDay.minute", statement, "dosage.1.timing.repeat.timeOfDay.0", "08:30:00")
            c.check("MedicationSchedule.daysOfWeek", statement, "dosage.1.timing.repeat.dayOfWeek.1", "fri")
            c.check("MedicationSchedule.effectiveFrom", statement, "dosage.1.timing.repeat.boundsPeriod.start",
                    schedule.effectiveFrom?.iso8601 ?? "-")
            c.check("MedicationSchedule.effectiveUntil", statement, "dosage.1.timing.repeat.boundsPeriod.end",
                    schedule.effectiveUntil?.iso8601 ?? "-")
            c.check("MedicationSchedule.interval", statement, "dosage.1.timing.repeat.period",
                    schedule.interval.map { "\($0.days)" } ?? "-")
            // At most 3 doses of 1.5 mg a day: 4.5 mg per day.
            c.check("Medication.maximumDosesPer24Hours", statement, "dosage.0.maxDosePerPeriod.numerator.value",
                    m.maximumDosesPer24Hours == 3 ? "4.5" : "-")
            #expect(Self.text(Self.lookup(statement, "dosage.1.timing.repeat.frequency")) == "\(schedule.times.count)")

            for log in mr.doseLogs {
                all.formUnion(Self.labels(log, "DoseLog"))
                let administration = find("MedicationAdministration", Self.id(log.id))
                c.check("DoseLog.id", administration, "id", Self.id(log.id))
                c.check("DoseLog.medicationID", administration, "supportingInformation.0.reference",
                        "MedicationStatement/\(Self.id(m.id))")
                c.check("DoseLog.updatedAt", administration, "meta.lastUpdated", Self.instant(log.updatedAt))
                if let takenAt = log.takenAt {
                    c.check("DoseLog.takenAt", administration, "effectiveDateTime", Self.instant(takenAt))
                    c.check("DoseLog.status", administration, "status", "completed")
                    c.check("DoseLog.notes", administration, "note.0.text", log.notes ?? "-")
                    c.check("DoseLog.amount", administration, "dosage.dose.value", (log.amount ?? m.dosage.amount).description)
                } else {
                    c.check("DoseLog.scheduledAt", administration, "effectiveDateTime", Self.instant(log.scheduledAt))
                    c.check("DoseLog.skipReason", administration, "statusReason.0.text", log.skipReason?.rawValue ?? "-")
                    c.check("DoseLog.status", administration, "status", "not-done")
                }
            }

            let neither = all.subtracting(c.mapped).subtracting(Self.noFHIRHome)
            #expect(neither.isEmpty, "fields neither mapped nor documented: \(neither.sorted())")
            #expect(c.mapped.isDisjoint(with: Self.noFHIRHome.subtracting(["Patient.deletedAt"])))
            #expect(Self.noFHIRHome.isSubset(of: all), "a documented field that no longer exists")
            let doc = try String(contentsOf: Self.docURL, encoding: .utf8)
            for field in Self.noFHIRHome.sorted() {
                #expect(doc.contains("`\(field)`"), "docs/medico-legal.md does not list \(field)")
            }
            await vault.lock()
        }
    }

    @Test("Every N days is anchored on a dosing day of its cycle; a taper's schedule states no single dose")
    func cycleAnchorAndTaperDose() throws {
        let day = { (text: String) in try CalendarDate(iso8601: text) }
        let every3 = DayInterval(days: 3, startDate: try day("2026-01-05"))
        #expect(FHIRMapping.cycleStart(every3, from: nil) == (try day("2026-01-05")))
        #expect(FHIRMapping.cycleStart(every3, from: try day("2026-01-01")) == (try day("2026-01-05")))
        #expect(FHIRMapping.cycleStart(every3, from: try day("2026-01-08")) == (try day("2026-01-08")))
        #expect(FHIRMapping.cycleStart(every3, from: try day("2026-01-09")) == (try day("2026-01-11")))

        let medication = Medication(patientID: UUID(), name: "Prednisona", dosage: Dosage(amount: 10, unit: .mg),
                                    frequency: .timesPerDay(1), startDate: try day("2026-01-01"))
        let taper = MedicationSchedule(medicationID: medication.id, times: [TimeOfDay(hour: 9)],
                                       timeZoneIdentifier: "Europe/Madrid",
                                       taperSteps: [TaperStep(from: try day("2026-01-01"), through: nil, amount: 20)])
        let plain = MedicationSchedule(medicationID: medication.id, times: [TimeOfDay(hour: 9), TimeOfDay(hour: 21)],
                                       timeZoneIdentifier: "Europe/Madrid", interval: every3)
        let dosages = FHIRMapping.dosages(medication, schedules: [taper, plain])
        #expect(Self.lookup(dosages[1], "doseAndRate") == nil, "the taper's amounts are not the medication's dose")
        #expect(Self.text(Self.lookup(dosages[2], "doseAndRate.0.doseQuantity.value")) == "10")
        #expect(Self.text(Self.lookup(dosages[2], "timing.repeat.frequency")) == "2")
        #expect(Self.text(Self.lookup(dosages[2], "timing.repeat.boundsPeriod.start")) == "2026-01-05")
    }
}
