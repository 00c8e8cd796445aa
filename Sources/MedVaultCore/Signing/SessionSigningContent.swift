import Foundation

/// The content a session signature covers, and its canonical encoding (version 1).
///
/// The signed content is the session's chief complaint, notes and treatment plan and
/// its diagnoses' clinical notes, bound to the session's and patient's identifiers.
/// ``encoded()`` writes it as bytes, byte for byte:
///
/// ```
/// text(t)     = 0x01, UInt32 big-endian byte count of t's UTF-8, t's UTF-8 bytes
/// absent      = 0x00
/// optional(t) = text(t) when t is present, absent otherwise
///
/// encoding    = text("medvault.session-signature.v1")
///               text(session id)          uppercase UUID text, 36 ASCII bytes
///               text(patient id)
///               optional(chief complaint)
///               optional(notes)
///               optional(treatment plan)
///               UInt32 big-endian number of diagnoses
///               for each diagnosis, by id text ascending (byte order):
///                   text(diagnosis id)
///                   optional(clinical notes)
/// ```
///
/// Texts are hashed as stored (blank texts are stored as absent; no Unicode
/// normalisation is applied). The SHA-256 of the encoding is
/// `SessionSignature.contentSHA256`. `Tests/Vectors/session-signature-v1.txt` holds a
/// known-answer vector.
///
/// For example:
///
/// ```swift
/// let digest = SessionSigningContent(session: session, diagnoses: diagnoses).sha256
/// let intact = digest == signature.contentSHA256
/// ```
public struct SessionSigningContent: Sendable, Hashable {
    /// The encoding version this build writes and verifies.
    public static let encodingVersion = 1
    /// The domain string that opens the encoding.
    public static let domain = "medvault.session-signature.v1"

    /// The session.
    public var session: ClinicalSession
    /// Its diagnoses, in any order (the encoding sorts them by id).
    public var diagnoses: [Diagnosis]

    /// Creates the content of `session` with its `diagnoses`.
    public init(session: ClinicalSession, diagnoses: [Diagnosis]) {
        self.session = session
        self.diagnoses = diagnoses
    }

    /// The canonical encoding (see the type's documentation).
    public func encoded() -> Data {
        var data = Data()
        Self.append(Self.domain, to: &data)
        Self.append(session.id.uuidString, to: &data)
        Self.append(session.patientID.uuidString, to: &data)
        Self.append(optional: session.chiefComplaint, to: &data)
        Self.append(optional: session.notes, to: &data)
        Self.append(optional: session.treatmentPlan, to: &data)
        Self.append(UInt32(clamping: diagnoses.count), to: &data)
        let sorted = diagnoses.map { ($0.id.uuidString, $0.clinicalNotes) }
            .sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        for (id, notes) in sorted {
            append(id, to: &data)
            Self.append(optional: notes, to: &data)
        }
        return data
    }

    /// SHA-256 of ``encoded()``.
    public var sha256: SHA256Digest { SHA256Digest.of(encoded()) }

    // MARK: - Encoding

    private func append(_ text: String, to data: inout Data) { Self.append(text, to: &data) }

    static func append(_ text: String, to data: inout Data) {
        let bytes = Array(text.utf8)
        data.append(0x01)
        append(UInt32(clamping: bytes.count), to: &data)
        data.append(contentsOf: bytes)
    }

    private static func append(optional text: String?, to data: inout Data) {
        if let text { append(text, to: &data) } else { data.append(0x00) }
    }

    private static func append(_ value: UInt32, to data: inout Data) {
        data.append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF),
                                 UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
