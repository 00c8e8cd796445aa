import Foundation
import MedVault

/// A progress bar for key rotation, drawn on standard error only when it is a terminal.
///
/// The rotation reports progress from the export's thread, so the last drawn percentage
/// is kept under a lock. `@unchecked Sendable` is safe: `lastPercent` is only read and
/// written while `lock` is held, and the other stored properties are immutable.
final class ProgressBar: @unchecked Sendable {
    private let isEnabled: Bool
    private let width = 30
    private let lock = NSLock()
    private var lastPercent = -1

    /// A bar that draws when `enabled` (standard error is a terminal).
    init(enabled: Bool = Output.standardErrorIsTerminal) {
        self.isEnabled = enabled
    }

    /// Redraws the bar for `progress` when its whole percentage changed.
    func update(_ progress: Vault.RotationProgress) {
        update(fraction: progress.fractionCopied, label: "Re-encrypting")
    }

    /// Redraws the bar at `fraction` (0…1) after `label` when its whole percentage changed.
    func update(fraction: Double, label: String) {
        guard isEnabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        let changed: Bool = lock.withLock {
            guard percent != lastPercent else { return false }
            lastPercent = percent
            return true
        }
        guard changed else { return }
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        Output.standardError("\r\(label) [\(bar)] \(String(percent).leftPadded(to: 3))%")
    }

    /// Ends the bar's line.
    func finish() {
        guard isEnabled else { return }
        let drew: Bool = lock.withLock { lastPercent >= 0 }
        if drew { Output.standardError("\n") }
    }
}

extension String {
    /// The string with spaces before it up to `width` characters.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
