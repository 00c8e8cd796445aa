import MedVaultCore
import Testing

/// ICD-11 MMS syntax rules of the diagnosis snapshot.
@Suite("ICD-11 snapshot syntax")
struct ICD11SnapshotTests {
    @Test(arguments: ["6A70", "6A70.1", "BA00.Z", "1A00", "2A00.00", "6A7Z", "QA00", "XS5W", "XN1A2",
                      "6A70&XS5W", "NE84/PK81", "6A70.1&XS0T&XN1A2"])
    func validCodes(code: String) {
        #expect(ICD11Snapshot.isValidCode(code))
    }

    @Test(arguments: ["", "6A7", "6a70", "6A70.", "6A70.123", "6I70", "6O70", "66A0", "6AA0", "A", "6A70 ",
                      " 6A70", "6A70&", "&6A70", "6A70&&XS5W", "X1", "XS", "XI00", "F32.1", "6A70-1", "ZZMARKERZZ"])
    func invalidCodes(code: String) {
        #expect(!ICD11Snapshot.isValidCode(code))
    }

    @Test func uris() {
        #expect(ICD11Snapshot.isValidURI("http://id.who.int/icd/entity/1563440232"))
        #expect(ICD11Snapshot.isValidURI("https://id.who.int/icd/release/11/2024-01/mms/1563440232"))
        #expect(!ICD11Snapshot.isValidURI("http://id.who.int/"))
        #expect(!ICD11Snapshot.isValidURI("https://example.org/icd/entity/1"))
        #expect(!ICD11Snapshot.isValidURI("http://id.who.int.evil.com/x"))
        #expect(!ICD11Snapshot.isValidURI("http://id.who.int/icd entity"))
        #expect(!ICD11Snapshot.isValidURI("ftp://id.who.int/icd/entity/1"))
    }

    @Test func releases() {
        #expect(ICD11Snapshot.isValidRelease("2024-01"))
        #expect(ICD11Snapshot.isValidRelease("2019-12"))
        for bad in ["2024", "2024-1", "2024-00", "2024-13", "24-01", "2024/01", "2024-01-01", "２０２４-01"] {
            #expect(!ICD11Snapshot.isValidRelease(bad), "\(bad)")
        }
    }

    @Test func validationListsEveryFieldInOrder() {
        let snapshot = ICD11Snapshot(code: "x", title: " ", titleEs: String(repeating: "t", count: 1_001),
                                     uri: "u", releaseVersion: "r")
        #expect(snapshot.validationErrors().map(\.field) == [
            "snapshot.code", "snapshot.title", "snapshot.titleEs", "snapshot.uri", "snapshot.releaseVersion",
        ])
        #expect(snapshot.validationErrors().allSatisfy { $0.code == .validation })
    }
}
