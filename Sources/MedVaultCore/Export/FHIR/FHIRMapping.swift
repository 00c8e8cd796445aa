import Foundation

/// How MedVault's records map to FHIR R4 resources (the table, field by field, is in
/// docs/medico-legal.md). Pure functions of the values: no storage, no clock.
///
/// References are relative (`Patient/<id>`), so the same resources serve a Bundle and
/// the Bulk Data NDJSON files. Resource ids are the records' UUIDs in lowercase; the
/// resources MedVault derives (a session's notes, its plan, a signature's Provenance…)
/// get a name-based UUID (``derivedID(_:_:)``), stable across exports.
package enum FHIRMapping {
    static let icdSystem = "http://id.who.int/icd/release/11/mms"
    static let ucum = "http://unitsofmeasure.org"
    static let loinc = "http://loinc.org"
    static let snomed = "http://snomed.info/sct"

    // MARK: - Helpers

    /// An object without its `nil` members, and without empty arrays.
    package static func object(_ members: [(String, FHIRJSON?)]) -> FHIRJSON {
        var result: [String: FHIRJSON] = [:]
        for (key, value) in members {
            guard let value else { continue }
            if case .array(let elements) = value, elements.isEmpty { continue }
            result[key] = value
        }
        return .object(result)
    }

    package static func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }

    /// A name-based UUID (SHA-256 of `kind:uuid`, RFC 9562 version 8 bits): the id of a
    /// resource MedVault derives from a record.
    package static func derivedID(_ kind: String, _ uuid: UUID) -> String {
        var bytes = SHA256Digest.of(Data("\(kind):\(id(uuid))".utf8)).bytes.prefix(16).map { $0 }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let value = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return id(value)
    }

    package static func reference(_ type: String, _ id: String, display: String? = nil) -> FHIRJSON {
        object([("reference", .string("\(type)/\(id)")), ("display", display.map(FHIRJSON.string))])
    }

    package static func instant(_ date: Date) -> FHIRJSON { .string(ISO8601Milliseconds.string(from: date)) }

    package static func text(_ value: String?) -> FHIRJSON? { value.map { ["text": .string($0)] } }

    package static func coding(_ system: String, _ code: String, _ display: String? = nil) -> FHIRJSON {
        object([("system", .string(system)), ("code", .string(code)), ("display", display.map(FHIRJSON.string))])
    }

    package static func meta(_ updatedAt: Date) -> FHIRJSON { ["lastUpdated": instant(updatedAt)] }

    package static func plainText(_ text: String, title: String) -> FHIRJSON {
        ["contentType": "text/plain", "data": .string(Data(text.utf8).base64EncodedString()),
         "title": .string(title)]
    }

    // MARK: - Patient and practitioner

    package static func patient(_ p: Patient) -> FHIRJSON {
        let gender: String = switch p.biologicalSex {
        case .female?: "female"
        case .male?: "male"
        case .intersex?: "other"
        default: "unknown"
        }
        var telecom: [FHIRJSON] = []
        if let email = p.email { telecom.append(["system": "email", "value": .string(email)]) }
        if let phone = p.phoneNumber { telecom.append(["system": "phone", "value": .string(phone)]) }
        return object([
            ("resourceType", "Patient"), ("id", .string(id(p.id))), ("meta", meta(p.updatedAt)),
            ("active", .bool(p.isActive)),
            ("identifier", p.nationalId.map { [["type": ["text": "National ID"], "value": .string($0)]] }),
            ("name", [["use": "official", "family": .string(p.lastName), "given": [.string(p.firstName)]]]),
            ("gender", p.biologicalSex == nil ? nil : .string(gender)),
            ("birthDate", .string(p.dateOfBirth.iso8601)),
            ("telecom", .array(telecom)),
            ("address", p.address.map { [["text": .string($0)]] }),
        ])
    }

    package static func practitioner(_ p: Professional) -> FHIRJSON {
        object([
            ("resourceType", "Practitioner"), ("id", .string(id(p.id))), ("meta", meta(p.updatedAt)),
            ("identifier", [["type": ["text": "License number"], "value": .string(p.licenseNumber)]]),
            ("name", [["text": .string(p.fullName)]]),
            ("telecom", p.email.map { [["system": "email", "value": .string($0)]] }),
            ("qualification", [["code": ["text": .string(p.specialty)]]]),
            ("communication", [["coding": [coding("urn:ietf:bcp:47", p.preferredLanguage)]]]),
        ])
    }
}
