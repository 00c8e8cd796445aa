import Foundation
import MedVaultCore

/// The JSON shapes of the ICD-API v2 answers the client reads, and what it makes of
/// them. Only the fields used are declared; unknown fields are ignored.
enum WHOICDResponses {
    /// The token endpoint's answer (OAuth2 client credentials).
    struct Token: Decodable {
        let access_token: String
        let expires_in: Int
    }

    /// `GET …/mms/search`.
    struct Search: Decodable {
        let error: Bool?
        let destinationEntities: [Destination]?
    }

    /// One search hit.
    struct Destination: Decodable {
        /// The linearization URI.
        let id: String
        /// The title, with `<em class='found'>` highlights.
        let title: String
        /// The MMS code; empty for blocks and chapters.
        let theCode: String?
    }

    /// `GET …/mms/codeinfo/{code}`.
    struct CodeInfo: Decodable {
        let code: String?
        let stemId: String
    }

    /// A language-tagged text (`{"@language": "es", "@value": "…"}`).
    struct LanguageText: Decodable {
        let language: String?
        let value: String

        enum CodingKeys: String, CodingKey {
            case language = "@language"
            case value = "@value"
        }
    }

    /// `GET` of an MMS linearization entity.
    struct Entity: Decodable {
        let id: String
        let code: String?
        let title: LanguageText
        /// The foundation entity's URI.
        let source: String?

        enum CodingKeys: String, CodingKey {
            case id = "@id"
            case code, title, source
        }
    }

    /// Decodes `data` as `T`.
    ///
    /// - Throws: `badResponse` for truncated, malformed or unexpected JSON.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw ICD11Errors.badResponse("the JSON is malformed, truncated or not of the documented shape")
        }
    }

    // MARK: - URIs

    /// The parts of an MMS linearization URI: `http(s)://id.who.int/icd/release/11/<release>/mms/<id>[/other|/unspecified]`.
    static func linearizationPath(_ uri: String) -> (release: String, entity: String)? {
        guard let path = whoPath(uri) else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 6, parts.count <= 7, parts[0] == "icd", parts[1] == "release", parts[2] == "11",
              ICD11Snapshot.isValidRelease(String(parts[3])), parts[4] == "mms",
              !parts[5].isEmpty, parts[5].allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        if parts.count == 7, parts[6] != "other", parts[6] != "unspecified" { return nil }
        return (String(parts[3]), parts[5...].joined(separator: "/"))
    }

    /// The numeric id of a foundation URI, `http(s)://id.who.int/icd/entity/<id>`.
    static func foundationID(_ uri: String) -> String? {
        guard let path = whoPath(uri) else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "icd", parts[1] == "entity", !parts[2].isEmpty,
              parts[2].allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return String(parts[2])
    }

    /// The path of an `http(s)://id.who.int/` URI.
    static func whoPath(_ uri: String) -> Substring? {
        for prefix in ["https://id.who.int/", "http://id.who.int/"] where uri.hasPrefix(prefix) {
            return uri.dropFirst(prefix.count)
        }
        return nil
    }

    /// The URI a snapshot keeps for a linearization entity: its foundation entity's
    /// (`source`, or the same numeric id), or the linearization URI itself for a residual
    /// category (`…/other`, `…/unspecified`), which has no foundation entity.
    static func snapshotURI(linearization: String, source: String?) -> String {
        if let source, foundationID(source) != nil { return source }
        if let parts = linearizationPath(linearization), !parts.entity.contains("/") {
            return "http://id.who.int/icd/entity/\(parts.entity)"
        }
        return linearization
    }

    // MARK: - Entities

    /// The entities of a search answer, in the server's order, at most `limit`. Hits
    /// without a category code (blocks, chapters) are skipped.
    ///
    /// - Throws: `badResponse` for an error answer, or a hit with an unusable URI or title.
    static func entities(of search: Search, language: String, release: String, limit: Int) throws -> [ICD11Entity] {
        if search.error == true { throw ICD11Errors.badResponse("the server reported a search error") }
        var entities: [ICD11Entity] = []
        for hit in search.destinationEntities ?? [] where entities.count < limit {
            guard let code = hit.theCode, ICD11Snapshot.isValidCode(code) else { continue }
            guard linearizationPath(hit.id) != nil else { throw ICD11Errors.badResponse("a search hit has an unexpected URI") }
            let entity = ICD11Entity(code: code, titles: [language: try ICD11ServerText.title(hit.title)],
                                     uri: snapshotURI(linearization: hit.id, source: nil),
                                     linearizationURI: hit.id, releaseVersion: release)
            entities.append(try checked(entity))
        }
        return entities
    }

    /// The entity of an entity answer.
    ///
    /// - Throws: `badResponse` for an entity without a code, with an unusable URI, title
    ///   or language tag.
    static func entity(of answer: Entity, language: String, release: String) throws -> ICD11Entity {
        guard let code = answer.code, ICD11Snapshot.isValidCode(code) else {
            throw ICD11Errors.badResponse("the entity has no category code")
        }
        guard linearizationPath(answer.id) != nil else { throw ICD11Errors.badResponse("the entity has an unexpected URI") }
        let titleLanguage = answer.title.language ?? language
        guard ICD11Entity.isValidLanguage(titleLanguage) else {
            throw ICD11Errors.badResponse("the title's language tag is malformed")
        }
        let entity = ICD11Entity(code: code, titles: [titleLanguage: try ICD11ServerText.title(answer.title.value)],
                                 uri: snapshotURI(linearization: answer.id, source: answer.source),
                                 linearizationURI: answer.id, releaseVersion: release)
        return try checked(entity)
    }

    private static func checked(_ entity: ICD11Entity) throws -> ICD11Entity {
        guard entity.validationErrors().isEmpty else { throw ICD11Errors.badResponse("an entity breaks the ICD-11 syntax") }
        return entity
    }
}
