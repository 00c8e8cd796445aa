import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The part of Foundation's `Process` the tests use, on `posix_spawn`.
///
/// Why not `Process`: on Linux, Swift 6.3.1's `Process.run()` lists `/proc/self/fd` and
/// copies each entry's whole 256-byte `d_name`, reading past readdir's buffer when the
/// last entry sits at its end — which happens once this process has about 1,300
/// descriptors open, as the parallel test suite does (many vaults open at once). The
/// read crosses into an unmapped page and the whole test run dies of SIGSEGV inside
/// `Process.run()` (swift-corelibs-foundation pull request 5472, fixed upstream, not in
/// this toolchain). Same semantics otherwise: standard streams from a `FileHandle` or a
/// `Pipe` (the child's end of a pipe is closed here after the spawn), every other
/// descriptor closed in the child, its own process group, the environment given or
/// this process's.
package final class TestProcess: @unchecked Sendable {
    // Safety of @unchecked Sendable: the configuration is set before `run()` by the one
    // test that owns the object; `waitStatus` is read and written only under `lock`.
    package enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// A process to configure, then ``run()``.
    package init() {}

    package var executableURL: URL?
    package var arguments: [String]?
    package var environment: [String: String]?
    /// A `FileHandle` or a `Pipe`, or `nil` to inherit this process's.
    package var standardInput: Any?
    package var standardOutput: Any?
    package var standardError: Any?

    package private(set) var processIdentifier: pid_t = 0
    private let lock = NSLock()
    private var waitStatus: Int32?

    package struct SpawnError: Error, CustomStringConvertible {
        package let description: String
    }

    package func run() throws {
        guard let path = executableURL?.path else { throw SpawnError(description: "no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        // glibc ≥ 2.34 has it, but declares it only under _GNU_SOURCE: found at run time.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_LAZY),
              let symbol = dlsym(process, "posix_spawn_file_actions_addclosefrom_np") else {
            throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)")
        }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        #endif

        var childEnds: [FileHandle] = []
        for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            let handle: FileHandle?
            switch stream {
            case let pipe as Pipe:
                handle = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                childEnds.append(handle!)
            case let file as FileHandle:
                handle = file
            default:
                handle = nil
            }
            if let handle { posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target) }
        }
        #if !canImport(Darwin)
        _ = closeFrom(&actions, 3)
        #endif

        let argv = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in variables { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, variables)
        guard result == 0 else { throw SpawnError(description: "posix_spawn \(path): \(String(cString: strerror(result)))") }
        processIdentifier = pid
        for handle in childEnds { try? handle.close() }
    }

    /// Whether the child has not been reaped yet (reaps it if it exited).
    package var isRunning: Bool {
        lock.withLock {
            guard waitStatus == nil, processIdentifier > 0 else { return false }
            var status: Int32 = 0
            if waitpid(processIdentifier, &status, WNOHANG) == processIdentifier {
                waitStatus = status
                return false
            }
            return true
        }
    }

    /// Blocks until the child exited.
    package func waitUntilExit() {
        while isRunning { usleep(2_000) }
    }

    /// SIGTERM.
    package func terminate() {
        if processIdentifier > 0 { _ = kill(processIdentifier, SIGTERM) }
    }

    /// The exit status, or the signal that ended the child.
    package var terminationStatus: Int32 {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    package var terminationReason: TerminationReason {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7F == 0 ? .exit : .uncaughtSignal
    }
}

/// What a child run by ``TestProcess/runCapturingOutput(mergingErrors:timeout:afterStart:)``
/// printed, and how it ended.
package struct CapturedRun: Sendable {
    package let status: Int32
    package let reason: TestProcess.TerminationReason
    /// Whether the child was killed for running past the timeout (its ``reason`` is then
    /// `uncaughtSignal` too: check this first).
    package let timedOut: Bool
    package let output: Data
    package let errors: Data

    package var outputText: String { String(decoding: output, as: UTF8.self) }
    package var errorText: String { String(decoding: errors, as: UTF8.self) }
}

extension TestProcess {
    /// Waits for the child to exit without holding one of Swift's cooperative threads
    /// (a test waits in `Task.sleep` between checks, so the suite's other tasks run);
    /// kills it with SIGKILL after `timeout`.
    ///
    /// - Returns: `false` when it had to be killed.
    @discardableResult
    package func exited(timeout: Duration = .seconds(300)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now > deadline {
                if processIdentifier > 0 { _ = kill(processIdentifier, SIGKILL) }
                while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
                return false
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Runs the configured child with its standard output and error in temporary files,
    /// not pipes: nothing blocks reading them, and a child that prints a lot never
    /// waits for a reader. Standard input is whatever the caller set (default: this
    /// process's); `afterStart` runs once the child started (to feed an input pipe).
    ///
    /// - Parameters:
    ///   - mergingErrors: Standard error goes to the same file as standard output.
    ///   - timeout: After it, the child is killed and ``CapturedRun/reason`` says so.
    package func runCapturingOutput(mergingErrors: Bool = false, timeout: Duration = .seconds(300),
                                    afterStart: () throws -> Void = {}) async throws -> CapturedRun {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let outputURL = scratch.file("stdout"), errorURL = scratch.file("stderr")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        standardOutput = output
        standardError = mergingErrors ? output : errors
        try run()
        do {
            try afterStart()
        } catch {
            if processIdentifier > 0 { _ = kill(processIdentifier, SIGKILL) }
            await exited()
            throw error
        }
        let timedOut = !(await exited(timeout: timeout))
        return CapturedRun(status: terminationStatus, reason: terminationReason, timedOut: timedOut,
                           output: (try? Data(contentsOf: outputURL)) ?? Data(),
                           errors: mergingErrors ? Data() : ((try? Data(contentsOf: errorURL)) ?? Data()))
    }
}
