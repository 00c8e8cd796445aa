import Foundation

extension FHIRMapping {
    /// The resources of one session: Encounter, its notes (DocumentReference) and
    /// treatment plan (CarePlan), a Condition per diagnosis, a DocumentReference per
    /// attachment, and, once signed, a Provenance for the signature and a
    /// DocumentReference and a Provenance per addendum.
    package static func session(_ record: PatientRecordExport.SessionRecord,
                                attachmentContent: [UUID: Data] = [:]) -> [FHIRJSON] {
        let session = record.session
        let encounterID = id(session.id)
        let encounter = reference("Encounter", encounterID)
        let subject = reference("Patient", id(session.patientID))
        let signer = record.signature.map {
            reference("Practitioner", id($0.professionalID), display: $0.professionalName)
        }
        var resources: [FHIRJSON] = [encounterResource(record)]
        let notesID = derivedID("notes", session.id)
        if let notes = session.notes {
            resources.append(object([
                ("resourceType", "DocumentReference"), ("id", .string(notesID)), ("meta", meta(session.updatedAt)),
                ("status", "current"), ("docStatus", record.signature == nil ? "preliminary" : "final"),
                ("type", ["coding": [coding(loinc, "11506-3", "Progress note")]]),
                ("subject", subject), ("date", instant(session.updatedAt)),
                ("authenticator", signer),
                ("content", [["attachment": plainText(notes, title: "Session notes")]]),
                ("context", ["encounter": [encounter]]),
            ]))
        }
        if let plan = session.treatmentPlan {
            resources.append(object([
                ("resourceType", "CarePlan"), ("id", .string(derivedID("plan", session.id))),
                ("meta", meta(session.updatedAt)),
                ("status", session.status == .cancelled ? "revoked" : "active"), ("intent", "plan"),
                ("subject", subject), ("encounter", encounter), ("created", instant(session.createdAt)),
                ("description", .string(plan)),
            ]))
        }
        resources += record.diagnoses.map { condition($0, patientID: session.patientID) }
        resources += record.attachments.map {
            attachment($0, content: attachmentContent[$0.id], subject: subject, encounter: encounter)
        }
        if let signature = record.signature, let signer {
            var targets = [encounter]
            if session.notes != nil { targets.append(reference("DocumentReference", notesID)) }
            if session.treatmentPlan != nil { targets.append(reference("CarePlan", derivedID("plan", session.id))) }
            targets += record.diagnoses.map { reference("Condition", id($0.id)) }
            resources.append(object([
                ("resourceType", "Provenance"), ("id", .string(derivedID("signature", session.id))),
                ("target", .array(targets)), ("recorded", instant(signature.signedAt)),
                ("agent", [["type": ["coding": [coding(
                    "http://terminology.hl7.org/CodeSystem/provenance-participant-type", "attester", "Attester")]],
                            "who": signer]]),
                ("signature", [object([
                    ("type", [coding("urn:iso-astm:E1762-95:2013", "1.2.840.10065.1.12.1.1", "Author's Signature")]),
                    ("when", instant(signature.signedAt)),
                    ("who", object([("reference", .string("Practitioner/\(id(signature.professionalID))")),
                                    ("display", .string(signature.professionalName)),
                                    ("identifier", ["type": ["text": "License number"],
                                                    "value": .string(signature.licenseNumber)])])),
                ] + signatureValue(signature, content: SessionSigningContent(session: session,
                                                                            diagnoses: record.diagnoses)))]),
                ("policy", [.string("urn:medvault:session-signature:v\(signature.encodingVersion)")]),
            ]))
        }
        for addendum in record.addenda {
            let author = reference("Practitioner", id(addendum.authorID), display: addendum.authorName)
            resources.append(object([
                ("resourceType", "DocumentReference"), ("id", .string(id(addendum.id))),
                ("status", "current"), ("docStatus", "final"),
                ("type", ["coding": [coding(loinc, "11506-3", "Progress note")], "text": "Addendum"]),
                ("subject", subject), ("date", instant(addendum.createdAt)), ("author", [author]),
                ("description", .string(addendum.reason)),
                ("relatesTo", session.notes == nil ? nil
                    : [["code": "appends", "target": reference("DocumentReference", notesID)]]),
                ("content", [["attachment": plainText(addendum.text, title: "Addendum")]]),
                ("context", ["encounter": [encounter]]),
            ]))
            resources.append(object([
                ("resourceType", "Provenance"), ("id", .string(derivedID("addendum", addendum.id))),
                ("target", [reference("DocumentReference", id(addendum.id)), encounter]),
                ("recorded", instant(addendum.createdAt)),
                ("activity", ["coding": [coding("http://terminology.hl7.org/CodeSystem/v3-DataOperation", "APPEND",
                                                "append")]]),
                ("reason", [["text": .string(addendum.reason)]]),
                ("agent", [["type": ["coding": [coding(
                    "http://terminology.hl7.org/CodeSystem/provenance-participant-type", "author", "Author")]],
                            "who": author]]),
            ]))
        }
        return resources
    }

    package static func encounterResource(_ record: PatientRecordExport.SessionRecord) -> FHIRJSON {
        let session = record.session
        let status: String = switch session.status {
        case .scheduled: "planned"
        case .completed: "finished"
        case .cancelled: "cancelled"
        default: "unknown"
        }
        let virtual = session.type == .video || session.type == .phone
        let actClass = coding("http://terminology.hl7.org/CodeSystem/v3-ActCode", virtual ? "VR" : "AMB",
                              virtual ? "virtual" : "ambulatory")
        let ranks: [DiagnosisType: Int] = [.principal: 1, .secondary: 2, .differential: 3]
        return object([
            ("resourceType", "Encounter"), ("id", .string(id(session.id))), ("meta", meta(session.updatedAt)),
            ("status", .string(status)), ("class", actClass),
            ("type", [["text": .string(session.type.rawValue)]]),
            ("subject", reference("Patient", id(session.patientID))),
            ("participant", record.signature.map {
                [["individual": reference("Practitioner", id($0.professionalID))]]
            }),
            ("period", ["start": instant(session.date), "end": instant(session.endDate)]),
            ("length", ["value": .integer(session.durationMinutes), "unit": "min", "system": .string(ucum),
                        "code": "min"]),
            ("reasonCode", session.chiefComplaint.map { [["text": .string($0)]] }),
            ("diagnosis", .array(record.diagnoses.map { d in
                object([("condition", reference("Condition", id(d.id))),
                        ("use", ["text": .string(d.diagnosisType.rawValue)]),
                        ("rank", ranks[d.diagnosisType].map { .integer($0) })])
            })),
        ])
    }

    package static func condition(_ d: Diagnosis, patientID: UUID) -> FHIRJSON {
        let snapshot = d.snapshot
        let translation: FHIRJSON? = snapshot.titleEs.map { title in
            ["extension": [["url": "http://hl7.org/fhir/StructureDefinition/translation",
                            "extension": [["url": "lang", "valueCode": "es"],
                                          ["url": "content", "valueString": .string(title)]]]]]
        }
        let icd = object([("system", .string(icdSystem)), ("version", .string(snapshot.releaseVersion)),
                          ("code", .string(snapshot.code)), ("display", .string(snapshot.title)),
                          ("_display", translation)])
        let severityCodes: [DiagnosisSeverity: (String, String)] = [
            .mild: ("255604002", "Mild"), .moderate: ("6736007", "Moderate"), .severe: ("24484000", "Severe"),
        ]
        let severity: FHIRJSON? = d.severity.map { s in
            object([("coding", severityCodes[s].map { [coding(snomed, $0.0, $0.1)] }), ("text", .string(s.rawValue))])
        }
        return object([
            ("resourceType", "Condition"), ("id", .string(id(d.id))), ("meta", meta(d.updatedAt)),
            ("verificationStatus", ["coding": [coding(
                "http://terminology.hl7.org/CodeSystem/condition-ver-status",
                d.diagnosisType == .differential ? "differential" : "confirmed")]]),
            ("category", [["coding": [coding("http://terminology.hl7.org/CodeSystem/condition-category",
                                             "encounter-diagnosis", "Encounter Diagnosis")]]]),
            ("severity", severity),
            ("code", object([("coding", [icd]), ("text", .string(snapshot.titleEs ?? snapshot.title))])),
            ("subject", reference("Patient", id(patientID))),
            ("encounter", reference("Encounter", id(d.sessionID))),
            ("recordedDate", instant(d.diagnosedAt)),
            ("note", d.clinicalNotes.map { [["text": .string($0)]] }),
        ])
    }

    package static func attachment(_ a: Attachment, content: Data?, subject: FHIRJSON, encounter: FHIRJSON) -> FHIRJSON {
        object([
            ("resourceType", "DocumentReference"), ("id", .string(id(a.id))), ("meta", meta(a.updatedAt)),
            ("status", "current"), ("subject", subject), ("date", instant(a.createdAt)),
            ("description", .string(a.fileName)),
            ("content", [["attachment": object([
                ("contentType", .string(a.mimeType)), ("title", .string(a.fileName)), ("size", .integer(a.byteCount)),
                ("data", content.map { .string($0.base64EncodedString()) }),
            ])]]),
            ("context", ["encounter": [encounter]]),
        ])
    }

    /// The value of a session's `Provenance.signature`: the Ed25519 signature in `data`,
    /// with the public key, the canonical content encoding, its SHA-256 and the signed
    /// attestation (digest, who, when; docs/medico-legal.md) in extensions, so a third party
    /// verifies it with the export alone; for a signature made before professional signing
    /// keys, the digest.
    private static func signatureValue(_ signature: SessionSignature, content: SessionSigningContent)
        -> [(String, FHIRJSON?)] {
        guard let bytes = signature.signatureBytes, let key = signature.signerPublicKey else {
            return [("sigFormat", "application/octet-stream"),
                    ("data", .string(Data(signature.contentSHA256.bytes).base64EncodedString()))]
        }
        return [
            ("extension", [
                ["url": .string(Self.signerKeyExtension), "valueBase64Binary": .string(key.base64EncodedString())],
                ["url": .string(Self.signedContentExtension),
                 "valueBase64Binary": .string(content.encoded().base64EncodedString())],
                ["url": .string(Self.contentDigestExtension),
                 "valueBase64Binary": .string(Data(signature.contentSHA256.bytes).base64EncodedString())],
                ["url": .string(Self.attestationExtension),
                 "valueBase64Binary": .string(signature.attestation.base64EncodedString())],
            ]),
            ("sigFormat", "application/octet-stream"),
            ("data", .string(bytes.base64EncodedString())),
        ]
    }

    /// The extension of `Provenance.signature` holding the signer's Ed25519 public key.
    static let signerKeyExtension = "urn:medvault:fhir:session-signature:ed25519-public-key"
    /// The extension of `Provenance.signature` holding the signed canonical encoding.
    static let signedContentExtension = "urn:medvault:fhir:session-signature:signed-content"
    /// The extension of `Provenance.signature` holding the SHA-256 of the signed encoding.
    static let contentDigestExtension = "urn:medvault:fhir:session-signature:content-sha256"
    /// The extension of `Provenance.signature` holding the attestation, the bytes the
    /// Ed25519 signature signs.
    static let attestationExtension = "urn:medvault:fhir:session-signature:signed-attestation"
}
