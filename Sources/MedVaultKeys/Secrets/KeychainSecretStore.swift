#if canImport(Security)
import Foundation
import MedVaultCore
import Security

/// A ``SecretStore`` backed by the Apple Keychain (generic passwords), available on Apple
/// platforms only.
///
/// Items are stored under `service` with the ``KeychainAccess`` given: by default
/// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` in the app's own group; every class is
/// "this device only", so items never leave the device (no iCloud Keychain, not in
/// backups restored elsewhere).
///
/// Not built nor tested on this project's CI, which runs on Linux: the mapping below is
/// the whole of it, and ``KeychainAccess`` itself is tested on every platform.
///
/// For example:
///
/// ```swift
/// let store = KeychainSecretStore(service: "com.example.clinic.vault")
/// ```
public struct KeychainSecretStore: SecretStore {
    /// The Keychain service name the items are filed under.
    public let service: String
    /// Who may read the items, and when.
    public let access: KeychainAccess

    /// Creates a store for `service`, its items readable as `access` allows.
    public init(service: String, access: KeychainAccess = .standard) {
        self.service = service
        self.access = access
    }

    /// The attributes that file an item under this store's service and group.
    private func itemQuery(account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let group = access.accessGroup { query[kSecAttrAccessGroup as String] = group }
        return query
    }

    private var accessibilityAttribute: CFString {
        switch access.accessibility {
        case .whenUnlocked: return kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlock: return kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSet: return kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    /// Adds or replaces the generic-password item for `account`.
    public func store(_ secret: SecureBytes, account: String) throws {
        try delete(account: account)
        // The Keychain API takes a Data; it is wiped as soon as SecItemAdd has copied it.
        var data = try secret.withUnsafeBytes { Data($0) }
        defer { data.resetBytes(in: 0..<data.count) }
        var query = itemQuery(account: account)
        query[kSecAttrAccessible as String] = accessibilityAttribute
        query[kSecValueData as String] = data
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else { throw Self.error(status) }
    }

    /// Reads the item for `account`, or returns `nil` when there is none.
    public func load(account: String) throws -> SecureBytes? {
        var query = itemQuery(account: account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, var data = result as? Data else { throw Self.error(status) }
        defer { data.resetBytes(in: 0..<data.count) }
        return SecureBytes(copying: data)
    }

    /// Deletes the item for `account`; does nothing when there is none.
    public func delete(account: String) throws {
        let query = itemQuery(account: account)
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status) }
    }

    private static func error(_ status: OSStatus) -> MedVaultError {
        switch status {
        case errSecInteractionNotAllowed:
            return MedVaultError(.locked, reason: "the Keychain is not available until the device is unlocked")
        case errSecAuthFailed:
            return MedVaultError(.permissionDenied, reason: "the Keychain refused access")
        default:
            return MedVaultError(.storage, reason: "Keychain operation failed (OSStatus \(status))")
        }
    }
}
#endif
