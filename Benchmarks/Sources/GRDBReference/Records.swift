import Foundation
import GRDB

// The clinic as a GRDB developer writes it: Codable records on the plain schema
// (BenchmarkSupport.PlainSchema), snake_case columns through GRDB's coding strategies,
// UUIDs stored by GRDB as 16-byte blobs, an association for a session's diagnoses.

struct PatientRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "patient"
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase

    var id: UUID
    var firstName: String
    var lastName: String
    var nameKey: String
    var birthDate: String
    var phone: String?
    var createdAt: Int64
    var updatedAt: Int64
}

struct SessionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session"
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let diagnoses = hasMany(DiagnosisRecord.self).forKey("diagnoses")

    var id: UUID
    var patientId: UUID
    var startsAt: Int64
    var notes: String
}

struct DiagnosisRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "diagnosis"
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase

    var id: UUID
    var sessionId: UUID
    var code: String
    var title: String
}

/// A session with its diagnoses, fetched in one request (`including(all:)`).
struct SessionWithDiagnoses: Decodable, FetchableRecord {
    var session: SessionRecord
    var diagnoses: [DiagnosisRecord]
}
