import Foundation
import MedVault

/// The lines that show a session's signed record: the original content, its signature
/// (and whether it still verifies), and its addenda in order. Every stored text is
/// escaped (``TextSafety/escaped(_:)``), one line per field.
enum SessionRecordLines {
    /// What a signature check found, in words.
    static func description(of check: SessionSignatureCheck) -> String {
        switch check {
        case .verified: "verified (signed with this vault's key for the professional)"
        case .signedByAnotherKey: "signed with ANOTHER KEY than this vault's for the professional: check the key"
        case .sealedOnly: "content matches its digest (signed before professional keys: not proof of who signed)"
        case .mismatch: "DOES NOT VERIFY: the signed content changed"
        case .unsigned: "unsigned"
        }
    }

    /// The signature and addenda of `entry`, indented by `indent` spaces.
    static func signing(_ entry: SessionHistoryEntry, indent: String) -> [String] {
        let safe = TextSafety.escaped
        var lines: [String] = []
        if let signature = entry.signature {
            let check = description(of: entry.signatureCheck)
            lines.append("\(indent)Signed by \(safe(signature.professionalName)) (license \(safe(signature.licenseNumber))) "
                         + "at \(PatientTable.dayAndTime(signature.signedAt)); \(check)")
            lines.append("\(indent)  SHA-256 \(signature.contentSHA256.hex)")
            if let key = signature.signerPublicKey {
                lines.append("\(indent)  Ed25519 key \(key.map { String(format: "%02x", $0) }.joined())")
            }
        } else {
            lines.append("\(indent)Not signed")
        }
        for (number, addendum) in entry.addenda.enumerated() {
            lines.append("\(indent)Addendum \(number + 1), \(PatientTable.dayAndTime(addendum.createdAt)), "
                         + "by \(safe(addendum.authorName)): \(safe(addendum.reason))")
            lines.append("\(indent)  \(safe(addendum.text))")
        }
        return lines
    }

    /// The whole record of one session: fields, original content, diagnoses, signing.
    static func record(_ entry: SessionHistoryEntry) -> [String] {
        let safe = TextSafety.escaped
        let session = entry.session
        var fields: [(String, String)] = [
            ("Session", session.id.uuidString.lowercased()),
            ("Patient", session.patientID.uuidString.lowercased()),
            ("Date", PatientTable.dayAndTime(session.date)),
            ("Type", safe(session.type.rawValue)),
            ("Duration", "\(session.durationMinutes) min"),
            ("Status", safe(session.status.rawValue)),
        ]
        let texts: [(String, String?)] = [("Chief complaint", session.chiefComplaint), ("Notes", session.notes),
                                          ("Treatment plan", session.treatmentPlan)]
        fields += texts.compactMap { label, value in value.map { (label, safe($0)) } }
        var lines = Output.table(fields)
        for diagnosis in entry.diagnoses {
            lines.append("Diagnosis \(safe(diagnosis.snapshot.code))  \(safe(diagnosis.snapshot.title))")
            if let notes = diagnosis.clinicalNotes { lines.append("  Clinical notes: \(safe(notes))") }
        }
        return lines + signing(entry, indent: "")
    }
}
