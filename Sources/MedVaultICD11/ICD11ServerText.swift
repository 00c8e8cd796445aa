import Foundation
import MedVaultCore

/// What the client makes of a server's text before it reaches an entity: the search
/// highlights removed, HTML entities decoded, white space collapsed, and anything a
/// clinical record must not store refused.
///
/// The server is not trusted: a title with a control or bidi formatting character
/// (`TextSafety`), or longer than a snapshot's title may be, is a `badResponse`, never
/// stored.
enum ICD11ServerText {
    /// `text` without markup: `<em class='found'>de</em>presión` → `depresión`.
    static func plain(_ text: String) -> String {
        var result = ""
        var inTag = false
        for character in text {
            switch character {
            case "<": inTag = true
            case ">" where inTag: inTag = false
            default: if !inTag { result.append(character) }
            }
        }
        let entities = ["&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'", "&apos;": "'", "&nbsp;": " ", "&amp;": "&"]
        for (entity, character) in entities { result = result.replacingOccurrences(of: entity, with: character) }
        return result.split(whereSeparator: { $0 == " " }).joined(separator: " ")
    }

    /// A title from the server, plain and checked.
    ///
    /// - Throws: `badResponse` for a blank or too long title, or one holding a control or
    ///   bidi formatting character.
    static func title(_ raw: String) throws -> String {
        let title = plain(raw).trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty, title.count <= ICD11Entity.maximumTitleLength else {
            throw ICD11Errors.badResponse("a title is empty or too long")
        }
        guard !title.unicodeScalars.contains(where: TextSafety.isRefusedInLine) else {
            throw ICD11Errors.badResponse("a title holds control or bidirectional formatting characters")
        }
        return title
    }
}
