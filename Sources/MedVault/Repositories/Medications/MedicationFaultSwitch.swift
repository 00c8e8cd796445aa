import Foundation
import MedVaultCore

/// A fault point a test armed, fired at most once by the write that reaches it.
///
/// Only stores built by MedVault's tests have one: production stores hold `nil`, so
/// their write path never takes this lock.
final class MedicationFaultSwitch: @unchecked Sendable {
    // Safety of @unchecked Sendable: `armed` is read and written only while holding
    // `lock`, and NSLock is thread-safe by contract.
    private let lock = NSLock()
    private var armed: _MedicationFaultPoint?

    /// Arms `point` (replacing any armed point).
    func arm(_ point: _MedicationFaultPoint) {
        lock.withLock { armed = point }
    }

    /// Whether `point` is armed; disarms it if so.
    func fire(_ point: _MedicationFaultPoint) -> Bool {
        lock.withLock {
            guard armed == point else { return false }
            armed = nil
            return true
        }
    }
}
