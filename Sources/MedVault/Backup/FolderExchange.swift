import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Swaps two paths in one atomic step, where the system offers it: Linux's
/// `renameat2(…, RENAME_EXCHANGE)` (kernel 3.15, on file systems that support it) and
/// Darwin's `renamex_np(…, RENAME_SWAP)`. A restore uses it to replace a vault's folder
/// so that the path names the old vault or the new one at every instant.
enum FolderExchange {
    /// Exchanges `first` and `second` (both must exist).
    ///
    /// - Returns: `false` when the system or the file system cannot (nothing changed then).
    static func exchange(_ first: URL, _ second: URL) -> Bool {
        #if os(Linux)
        // Glibc's headers declare renameat2 only under _GNU_SOURCE, which Swift's Glibc
        // module does not define: look the function up at run time instead.
        guard let renameat2 = linuxRenameAt2 else { return false }
        return renameat2(AT_FDCWD, first.path, AT_FDCWD, second.path, linuxRenameExchange) == 0
        #elseif canImport(Darwin)
        return renamex_np(first.path, second.path, UInt32(RENAME_SWAP)) == 0
        #else
        return false
        #endif
    }
}

#if os(Linux)
private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32

/// `RENAME_EXCHANGE` from `<linux/fs.h>`.
private let linuxRenameExchange: UInt32 = 1 << 1

/// glibc's `renameat2` (2.28 and later), or `nil`. A null handle is `RTLD_DEFAULT`.
private let linuxRenameAt2: RenameAt2? = {
    guard let symbol = dlsym(nil, "renameat2") else { return nil }
    return unsafeBitCast(symbol, to: RenameAt2.self)
}()
#endif
