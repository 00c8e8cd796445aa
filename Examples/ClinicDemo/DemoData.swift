import Foundation
import MedVault

/// The clinic demo's data: values only. Instants are UTC; the clinic is in Madrid
/// (CET, UTC+1, in February and March 2026).
enum DemoData {
    /// A demo password. A real app asks its user.
    static let password = "demo: correct horse battery staple"
    /// The demo's "now": Monday 16 March 2026, 10:30 in Madrid.
    static let now = "2026-03-16T09:30:00.000Z"
    /// The clinic's time zone, for display.
    static let timeZone = "Europe/Madrid"

    static let professional = Professional(
        fullName: "Dra. Elena Ruiz Sánchez", licenseNumber: "M-28471",
        specialty: "Psicología clínica", email: "consulta@ruiz-psicologia.example", preferredLanguage: "es"
    )

    // MARK: - ICD-11 MMS, release 2024-01

    static let depressiveEpisode = ICD11Snapshot(
        code: "6A70", title: "Single episode depressive disorder",
        titleEs: "Trastorno depresivo de episodio único",
        uri: "http://id.who.int/icd/entity/578635574", releaseVersion: "2024-01")
    static let generalisedAnxiety = ICD11Snapshot(
        code: "6B00", title: "Generalised anxiety disorder",
        titleEs: "Trastorno de ansiedad generalizada",
        uri: "http://id.who.int/icd/entity/1712535455", releaseVersion: "2024-01")
    static let postTraumaticStress = ICD11Snapshot(
        code: "6B40", title: "Post traumatic stress disorder",
        titleEs: "Trastorno de estrés postraumático",
        uri: "http://id.who.int/icd/entity/2070699808", releaseVersion: "2024-01")

    // MARK: - Patients and their sessions

    /// A diagnosis made during a session.
    struct DiagnosisSeed {
        let snapshot: ICD11Snapshot
        let type: DiagnosisType
        let severity: DiagnosisSeverity?
    }

    /// A completed session.
    struct SessionSeed {
        let date: String
        let type: SessionType
        let chiefComplaint: String
        let diagnoses: [DiagnosisSeed]
    }

    /// A patient and their history.
    struct PatientSeed {
        let patient: Patient
        let sessions: [SessionSeed]
        /// Whether the demo deactivates the patient.
        let deactivate: Bool
    }

    static let patients: [PatientSeed] = [
        PatientSeed(
            patient: Patient(firstName: "José", lastName: "García Núñez", dateOfBirth: date("1984-03-07"),
                             biologicalSex: .male, nationalId: "12345678Z", email: "jose.garcia@example.org",
                             phoneNumber: "+34 612 345 678"),
            sessions: [
                SessionSeed(date: "2026-02-02T09:00:00.000Z", type: .inPerson,
                            chiefComplaint: "Ánimo bajo y apatía desde hace dos meses",
                            diagnoses: [DiagnosisSeed(snapshot: depressiveEpisode, type: .principal, severity: .moderate)]),
                SessionSeed(date: "2026-02-16T09:00:00.000Z", type: .video,
                            chiefComplaint: "Seguimiento; duerme mejor", diagnoses: []),
                SessionSeed(date: "2026-03-02T09:00:00.000Z", type: .inPerson,
                            chiefComplaint: "Preocupación constante por el trabajo",
                            diagnoses: [DiagnosisSeed(snapshot: generalisedAnxiety, type: .secondary, severity: .mild)]),
            ],
            deactivate: false),
        PatientSeed(
            patient: Patient(firstName: "María", lastName: "Ibáñez Peña", dateOfBirth: date("1991-11-23"),
                             biologicalSex: .female, email: "maria.ibanez@example.org"),
            sessions: [
                SessionSeed(date: "2026-02-10T15:00:00.000Z", type: .inPerson,
                            chiefComplaint: "Pesadillas tras un accidente de tráfico",
                            diagnoses: [DiagnosisSeed(snapshot: postTraumaticStress, type: .principal, severity: .severe)]),
                SessionSeed(date: "2026-02-24T15:00:00.000Z", type: .phone,
                            chiefComplaint: "Seguimiento", diagnoses: []),
            ],
            deactivate: false),
        PatientSeed(
            patient: Patient(firstName: "Lucía", lastName: "Muñoz Ortega", dateOfBirth: date("1978-06-02"),
                             biologicalSex: .female, phoneNumber: "+34 698 765 432"),
            sessions: [
                SessionSeed(date: "2025-11-12T11:00:00.000Z", type: .inPerson,
                            chiefComplaint: "Ansiedad ante el traslado a otra ciudad",
                            diagnoses: [DiagnosisSeed(snapshot: generalisedAnxiety, type: .principal, severity: .mild)]),
            ],
            deactivate: true),
    ]

    /// The patient whose history the demo prints, and the search that finds him.
    static let historyPatientIndex = 0
    static let search = "jose"

    private static func date(_ text: String) -> CalendarDate {
        // Fixed literals, all valid: a failure here is a typo in this file.
        (try? CalendarDate(iso8601: text)) ?? CalendarDate(dayNumber: 0)
    }
}
