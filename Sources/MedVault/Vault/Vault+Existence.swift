import Foundation

extension Vault {
    /// Whether `folder` holds a vault, judged by its keyring file — without reading it.
    ///
    /// Lets a tool say "no vault here" before it asks for a password. Opening can still
    /// fail for other reasons (a damaged keyring, a missing database).
    ///
    /// For example:
    ///
    /// ```swift
    /// guard Vault.exists(at: folder) else { print("no vault in \(folder.path)"); return }
    /// let vault = try await Vault.open(at: folder, password: askPassword())
    /// ```
    ///
    /// - Parameter folder: The vault's folder.
    /// - Returns: `true` when the folder has a keyring file.
    public static func exists(at folder: URL) -> Bool {
        var isDirectory: ObjCBool = false
        let path = VaultLayout(folder: folder).keyring.path
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
