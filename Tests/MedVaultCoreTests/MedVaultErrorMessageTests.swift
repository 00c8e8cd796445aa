import Foundation
@testable import MedVaultCore
import Testing

/// Messages for the user in English and Spanish: every code `MedVaultError.Code` declares
/// has both (read from the declarations themselves, so a new code without messages fails
/// here), the language follows the tag, and no message carries a value.
@Suite("MedVaultError messages for the user")
struct MedVaultErrorMessageTests {
    /// The codes declared in MedVaultError.swift (`public static let x = Code(rawValue: "x")`).
    static func declaredCodes() throws -> [String] {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MedVaultCore/Errors/MedVaultError.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "= Code(rawValue: \""), line.contains("public static let") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    @Test("Every declared code has an English and a Spanish message, different and not empty")
    func everyCodeHasBothLanguages() throws {
        let declared = try Self.declaredCodes()
        #expect(declared.count >= 29)
        for raw in declared {
            let messages = try #require(MedVaultError.messages[MedVaultError.Code(rawValue: raw)], "\(raw) has no messages")
            #expect(!messages.en.isEmpty && !messages.es.isEmpty, "\(raw)")
            #expect(messages.en != messages.es, "\(raw): the Spanish message is the English one")
        }
        #expect(Set(MedVaultError.messages.keys.map(\.rawValue)) == Set(declared), "messages for codes that do not exist")
        #expect(MedVaultError.userMessageLanguages == ["en", "es"])
    }

    @Test("The language follows the tag: es, es-MX and es_AR give Spanish; en, fr and pt give English; an unknown code a general message")
    func languageFollowsTheTag() {
        let error = MedVaultError(.wrongPassword, reason: "the password does not open any slot")
        for tag in ["es", "es-MX", "es_AR", "ES"] {
            #expect(error.userMessage(language: tag) == "La contraseña no abre esta bóveda.", "\(tag)")
        }
        for tag in ["en", "en-GB", "fr", "pt-BR"] {
            #expect(error.userMessage(language: tag) == "The password does not open this vault.", "\(tag)")
        }
        let future = MedVaultError(MedVaultError.Code(rawValue: "fromANewerVersion"), reason: "x")
        #expect(future.userMessage(language: "es") == MedVaultError.unknownCodeMessage.es)
        #expect(error.errorDescription == error.userMessage())
        #expect(error.localizedDescription == error.userMessage())
    }

    @Test("A message never carries the field's value or the reason's text")
    func noValueInMessages() {
        let marker = "Zyxmarkervalue"
        let error = MedVaultError(.validation, field: "firstName", reason: "a developer's reason \(marker)")
        for language in MedVaultError.userMessageLanguages {
            #expect(!error.userMessage(language: language).contains(marker))
        }
    }
}
