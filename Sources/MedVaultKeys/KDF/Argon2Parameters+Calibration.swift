import MedVaultCore

extension Argon2Parameters {
    /// Picks the number of passes that makes one derivation take about `targetDuration`
    /// on this device, at a fixed memory cost and parallelism.
    ///
    /// It times a one-pass and a two-pass derivation, takes their difference as the cost of
    /// one pass (the first pass also pays for allocating memory), and chooses the largest
    /// pass count whose estimate does not exceed the target. The result never falls below
    /// ``productionFloor``: on a slow device it may take longer than the target.
    ///
    /// For example:
    ///
    /// ```swift
    /// let parameters = try Argon2Parameters.calibrated(targetDuration: .milliseconds(500))
    /// ```
    ///
    /// - Parameters:
    ///   - targetDuration: The unlock time to aim for (for example half a second).
    ///   - memoryKiB: Memory cost to keep; 64 MiB by default, raised to the floor's 19 MiB if lower.
    ///   - parallelism: Lanes to keep; 4 by default.
    /// - Returns: Checked parameters.
    /// - Throws: `MedVaultError.Code.invalidArgument` for a non-positive target or bad memory
    ///   or parallelism; `MedVaultError.Code.storage` when Argon2 cannot run.
    public static func calibrated(
        targetDuration: Duration,
        memoryKiB: UInt32 = 65_536,
        parallelism: UInt32 = 4
    ) throws -> Argon2Parameters {
        guard targetDuration > .zero else {
            throw MedVaultError(.invalidArgument, field: "targetDuration", reason: "calibration target must be positive")
        }
        let floor = productionFloor
        let memory = max(memoryKiB, floor.memoryKiB)
        let onePass = try Argon2Parameters(memoryKiB: memory, iterations: 1, parallelism: parallelism)
        let twoPasses = try Argon2Parameters(memoryKiB: memory, iterations: 2, parallelism: parallelism)
        let password = SecureBytes.random(count: 16)
        let salt = Array(repeating: UInt8(0x5A), count: onePass.saltLength)
        let clock = ContinuousClock()
        let first = try clock.measure { _ = try Argon2id.deriveKey(password: password, salt: salt, parameters: onePass) }
        let second = try clock.measure { _ = try Argon2id.deriveKey(password: password, salt: salt, parameters: twoPasses) }
        let perPass = max(second - first, first / 2, .microseconds(1))
        let setup = max(first - perPass, .zero)
        let available = targetDuration - setup
        var passes: UInt32 = 1
        if available > perPass {
            let ratio = available / perPass
            passes = UInt32(min(max(ratio.rounded(.down), 1), Double(maximumIterations)))
        }
        while passes < maximumIterations,
              UInt64(memory) * UInt64(passes) < UInt64(floor.memoryKiB) * UInt64(floor.iterations) {
            passes += 1
        }
        return try Argon2Parameters(memoryKiB: memory, iterations: passes, parallelism: parallelism)
    }
}
