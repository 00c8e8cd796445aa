import Foundation
import MedVaultCore
@testable import MedVaultICD11
import Testing

/// What the client makes of the server's text and URIs, without a server.
@Suite("ICD-API answers parsed")
struct ICD11ResponseParsingTests {
    @Test("search highlights and entities are removed; white space collapsed")
    func plainText() throws {
        #expect(ICD11ServerText.plain("Trastorno <em class='found'>depresivo</em> de episodio único")
                == "Trastorno depresivo de episodio único")
        #expect(ICD11ServerText.plain("<em class='found'>Fever</em> of other &amp; unknown origin")
                == "Fever of other & unknown origin")
        #expect(try ICD11ServerText.title("  a  <b>b</b> ") == "a b")
        #expect(throws: MedVaultError.self) { try ICD11ServerText.title("<em></em>") }
        #expect(throws: MedVaultError.self) { try ICD11ServerText.title("ok\u{1B}[31m") }
        #expect(throws: MedVaultError.self) { try ICD11ServerText.title("ok\u{2066}") }
        #expect(throws: MedVaultError.self) { try ICD11ServerText.title(String(repeating: "a", count: 1_001)) }
    }

    @Test("URIs: linearization and foundation forms; anything else is refused")
    func uris() {
        #expect(WHOICDResponses.linearizationPath("http://id.who.int/icd/release/11/2024-01/mms/578635574")?.entity == "578635574")
        #expect(WHOICDResponses.linearizationPath("http://id.who.int/icd/release/11/2024-01/mms/578635574/unspecified")?.entity
                == "578635574/unspecified")
        #expect(WHOICDResponses.linearizationPath("http://id.who.int/icd/release/11/2024-01/mms/../../x") == nil)
        #expect(WHOICDResponses.linearizationPath("http://evil.example/icd/release/11/2024-01/mms/1") == nil)
        #expect(WHOICDResponses.linearizationPath("http://id.who.int/icd/release/11/2024-01/mms/1/other/2") == nil)
        #expect(WHOICDResponses.foundationID("https://id.who.int/icd/entity/1712535455") == "1712535455")
        #expect(WHOICDResponses.foundationID("https://id.who.int/icd/entity/17x") == nil)
        #expect(WHOICDResponses.snapshotURI(linearization: "http://id.who.int/icd/release/11/2024-01/mms/1/unspecified", source: nil)
                == "http://id.who.int/icd/release/11/2024-01/mms/1/unspecified")
        #expect(WHOICDResponses.snapshotURI(linearization: "http://id.who.int/icd/release/11/2024-01/mms/5", source: nil)
                == "http://id.who.int/icd/entity/5")
    }
}
