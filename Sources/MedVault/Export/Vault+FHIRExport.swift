import Foundation
import MedVaultCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Vault {
    /// Writes one patient's record as a FHIR R4 `Bundle` (JSON) to `url`, with the
    /// private-file rules of `PrivateFileWriter` (mode 0600, atomic, no link followed).
    ///
    /// For example:
    ///
    /// ```swift
    /// try await vault.exportFHIRBundle(of: patient.id, to: URL(fileURLWithPath: "jose.fhir.json"))
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient, active or inactive.
    ///   - url: The destination file.
    ///   - includingAttachments: `true` to write attachments' content inline (base64):
    ///     each is read in full and checked against its SHA-256 (the Bundle is built in
    ///     memory). Default `false`: metadata only.
    /// - Returns: The export written (resources and their types).
    /// - Throws: `notFound` for an unknown patient; the errors of `PrivateFileWriter`
    ///   (field `output`); `corrupted` for an attachment that fails its digest; `locked`;
    ///   storage errors.
    @discardableResult
    public func exportFHIRBundle(of patientID: UUID, to url: URL, includingAttachments: Bool = false) async throws
        -> FHIRExport
    {
        try PrivateFileWriter.check(url)
        let export = try await fhirExport(of: [patientID], includingAttachments: includingAttachments)
        try PrivateFileWriter.write(export.bundleData(id: UUID(), timestamp: options.clock.now()), to: url)
        return export
    }

    /// Patients' records as FHIR R4 resources (see `FHIRExport`).
    ///
    /// - Parameters:
    ///   - patientIDs: The patients.
    ///   - includingAttachments: `true` to include attachments' content inline.
    /// - Throws: `notFound` for an unknown patient; `corrupted` for an attachment that
    ///   fails its digest; `locked`; storage errors.
    public func fhirExport(of patientIDs: [UUID], includingAttachments: Bool = false) async throws -> FHIRExport {
        var records: [PatientRecordExport] = []
        var content: [UUID: Data] = [:]
        for id in patientIDs {
            let record = try await exportRecord(of: id)
            try await audit.record(.fhirExport, table: .patient, id: id)
            records.append(record)
            guard includingAttachments else { continue }
            for attachment in record.sessions.flatMap(\.attachments) {
                content[attachment.id] = try await attachments.data(of: attachment.id)
            }
        }
        return FHIRExport(records: records, practitioner: try await professional.get(), attachmentContent: content)
    }

    /// Writes the whole vault as FHIR Bulk Data: one NDJSON file per resource type
    /// (`Patient.ndjson`, `Encounter.ndjson`…) in `folder`, each written with the
    /// private-file rules (mode 0600, atomic, no link followed).
    ///
    /// `folder` must exist, be a real folder (not a link) and be private to its owner
    /// (no access for group or others): the files hold the record in clear text.
    ///
    /// - Returns: The number of resources written per file name.
    /// - Throws: `permissionDenied` (field `output`) for a folder others may access or
    ///   a link; `fileNotFound` when it does not exist; the errors of
    ///   `PrivateFileWriter`; `locked`; storage errors.
    @discardableResult
    public func exportFHIRBulk(to folder: URL) async throws -> [String: Int] {
        try Self.checkPrivateFolder(folder)
        let documents = try await exportAllRecords()
        try await audit.record(.fhirExport)
        let export = FHIRExport(records: documents, practitioner: try await professional.get())
        var counts: [String: Int] = [:]
        for (name, data) in export.ndjsonFiles().sorted(by: { $0.key < $1.key }) {
            try PrivateFileWriter.write(data, to: folder.appendingPathComponent(name))
            counts[name] = data.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        }
        return counts
    }

    static func checkPrivateFolder(_ folder: URL) throws {
        var status = stat()
        guard lstat(folder.path, &status) == 0 else {
            throw MedVaultError(.fileNotFound, field: "output", reason: "the output folder does not exist")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "the output is not a folder (a file, a link or a device)")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "other users may access the output folder; chmod 700 it first")
        }
        // Its owner can read and replace every file in it, mode or not.
        guard status.st_uid == geteuid() else {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "the output folder belongs to another user; use a folder of your own")
        }
    }
}
