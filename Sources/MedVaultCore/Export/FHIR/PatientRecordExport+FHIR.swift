import Foundation

/// A patient's record as FHIR R4 resources: one Bundle, or the lines of Bulk Data
/// NDJSON files, one file per resource type.
///
/// The mapping, field by field, and the fields with no FHIR home are listed in
/// docs/medico-legal.md. The output holds the record in CLEAR TEXT: write it with
/// `PrivateFileWriter` (mode 0600, atomic), as `Vault.exportFHIRBundle(of:to:)` and
/// `Vault.exportFHIRBulk(to:)` do.
///
/// For example:
///
/// ```swift
/// let record = try await vault.exportRecord(of: patientID)
/// let bundle = FHIRExport(records: [record], practitioner: try await vault.professional.get())
/// let json = bundle.bundleData(id: UUID(), timestamp: .now)
/// ```
public struct FHIRExport: Sendable {
    /// Every resource: the Practitioner (when given), then per patient the Patient,
    /// each session's resources, then each medication's.
    public let resources: [FHIRJSON]

    /// Maps `records` (one per patient) with the vault's `practitioner`.
    ///
    /// - Parameters:
    ///   - records: One document per patient.
    ///   - practitioner: The vault's professional, if any.
    ///   - attachmentContent: Attachments' bytes by attachment id, written inline
    ///     (`DocumentReference.content.attachment.data`, base64); an attachment not listed
    ///     is exported as metadata only.
    public init(records: [PatientRecordExport], practitioner: Professional?, attachmentContent: [UUID: Data] = [:]) {
        var resources: [FHIRJSON] = practitioner.map { [FHIRMapping.practitioner($0)] } ?? []
        for record in records {
            resources.append(FHIRMapping.patient(record.patient))
            for session in record.sessions {
                resources += FHIRMapping.session(session, attachmentContent: attachmentContent)
            }
            for medication in record.medications {
                resources += FHIRMapping.medication(medication, practitioner: practitioner)
            }
        }
        self.resources = resources
    }

    /// The resource types present, in the order of first appearance.
    public var resourceTypes: [String] {
        var seen = Set<String>()
        return resources.compactMap { $0["resourceType"]?.stringValue }.filter { seen.insert($0).inserted }
    }

    /// A FHIR `Bundle` of type `collection` holding every resource, as JSON (one line,
    /// then a line feed).
    ///
    /// - Parameters:
    ///   - id: The Bundle's id.
    ///   - timestamp: When the Bundle was assembled.
    public func bundleData(id: UUID, timestamp: Date) -> Data {
        let bundle: FHIRJSON = [
            "resourceType": "Bundle", "id": .string(id.uuidString.lowercased()), "type": "collection",
            "timestamp": .string(ISO8601Milliseconds.string(from: timestamp)),
            "entry": .array(resources.map { ["resource": $0] }),
        ]
        return Data((bundle.serialized() + "\n").utf8)
    }

    /// The Bulk Data NDJSON files: for each resource type, one resource per line,
    /// keyed by file name (`Patient.ndjson`, `Encounter.ndjson`…).
    public func ndjsonFiles() -> [String: Data] {
        var files: [String: String] = [:]
        for resource in resources {
            guard let type = resource["resourceType"]?.stringValue else { continue }
            files["\(type).ndjson", default: ""] += resource.serialized() + "\n"
        }
        return files.mapValues { Data($0.utf8) }
    }
}
