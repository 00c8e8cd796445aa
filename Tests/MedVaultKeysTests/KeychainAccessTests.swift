import MedVaultCore
@testable import MedVaultKeys
import Testing

/// The Keychain access policy an app and its extensions share (issue #38, item 1): the
/// values are checked on every platform; Apple platforms map them to the Keychain.
@Suite("Keychain access policy")
struct KeychainAccessTests {
    @Test func standardIsWhenUnlockedInTheAppsGroup() throws {
        #expect(KeychainAccess.standard == (try KeychainAccess()))
        #expect(KeychainAccess.standard.accessibility == .whenUnlocked && KeychainAccess.standard.accessGroup == nil)
    }

    @Test func afterFirstUnlockInASharedGroup() throws {
        let shared = try KeychainAccess.afterFirstUnlock(accessGroup: "TEAMID.com.example.meds.shared")
        #expect(shared.accessibility == .afterFirstUnlock && shared.accessGroup == "TEAMID.com.example.meds.shared")
    }

    @Test(arguments: ["", "group\u{0}name", "line\nbreak"])
    func refusesABadGroupName(group: String) {
        do {
            _ = try KeychainAccess(accessibility: .afterFirstUnlock, accessGroup: group)
            Issue.record("accepted \(group.debugDescription)")
        } catch let error as MedVaultError {
            #expect(error.code == .invalidArgument && error.field == "accessGroup")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
