import MedVaultCore

/// Who may read a `KeychainSecretStore`'s items, and when: the Keychain's accessibility
/// class and access group, as plain values (so the choice is made, documented and tested
/// on every platform; only Apple platforms apply it).
///
/// The default keeps MedVault's strictest class: readable only while the device is
/// unlocked, never leaving it, in the app's own group. An app whose extensions log doses
/// while the phone is locked stores the dose journal key (docs/extensions.md) with
/// ``afterFirstUnlock(accessGroup:)`` in a group the extensions share — and keeps the
/// vault's own secret with ``standard``.
///
/// For example:
///
/// ```swift
/// let shared = KeychainSecretStore(service: "com.example.meds.journal",
///                                  access: .afterFirstUnlock(accessGroup: "TEAMID.com.example.meds.shared"))
/// ```
public struct KeychainAccess: Sendable, Hashable {
    /// When the item can be read. Every class is "this device only": MedVault's secrets
    /// never sync to iCloud Keychain nor restore onto another device.
    public enum Accessibility: String, Sendable, Hashable, CaseIterable {
        /// While the device is unlocked (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
        case whenUnlocked
        /// From the first unlock after a restart until the next restart, locked or not
        /// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`): what a notification action
        /// or widget needs while the phone is locked.
        case afterFirstUnlock
        /// While the device is unlocked, and only while a passcode is set: removed when the
        /// passcode is (`kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`).
        case whenPasscodeSet
    }

    /// When the item can be read.
    public var accessibility: Accessibility
    /// The Keychain access group the item is filed in (`kSecAttrAccessGroup`), shared by
    /// an app and its extensions; `nil` for the app's default group.
    public var accessGroup: String?

    /// Creates an access policy.
    ///
    /// - Throws: `MedVaultError/Code/invalidArgument` (field `accessGroup`) for an empty
    ///   group name or one with control characters.
    public init(accessibility: Accessibility = .whenUnlocked, accessGroup: String? = nil) throws {
        if let accessGroup, accessGroup.isEmpty || accessGroup.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw MedVaultError(.invalidArgument, field: "accessGroup", reason: "must be a non-empty group name")
        }
        self.accessibility = accessibility
        self.accessGroup = accessGroup
    }

    /// While unlocked, this device only, the app's default group: the vault secret's
    /// policy. The default group is the first of the app's keychain access groups: an app
    /// whose first group is the one it shares with its extensions should name its own
    /// group here, so the vault's secret stays out of the extensions' reach.
    public static let standard = KeychainAccess(validated: .whenUnlocked, accessGroup: nil)

    /// After first unlock, this device only, in `accessGroup`: for a key extensions read
    /// while the device is locked.
    ///
    /// - Throws: As ``init(accessibility:accessGroup:)``.
    public static func afterFirstUnlock(accessGroup: String) throws -> KeychainAccess {
        try KeychainAccess(accessibility: .afterFirstUnlock, accessGroup: accessGroup)
    }

    private init(validated accessibility: Accessibility, accessGroup: String?) {
        self.accessibility = accessibility
        self.accessGroup = accessGroup
    }
}
