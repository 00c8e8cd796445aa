#if os(Linux)
import Foundation
import MedVaultTestSupport
import Testing

/// A pseudo-terminal for driving `medvault`'s interactive prompts: the child gets the
/// slave side as its stdin/stdout/stderr and controlling terminal (through
/// `setsid --ctty`), the test reads and writes the master side.
final class PseudoTerminal {
    let master: Int32
    let slave: FileHandle
    private(set) var transcript = ""

    // Linux's <asm-generic/ioctls.h> values, which Swift does not import (function-like
    // macros): TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned int).
    private static let unlockRequest: UInt = 0x4004_5431
    private static let numberRequest: UInt = 0x8004_5430

    init() throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0, "cannot open /dev/ptmx")
        var unlock: CInt = 0
        var number: CInt = 0
        try #require(ioctl(master, Self.unlockRequest, &unlock) == 0, "cannot unlock the pty")
        try #require(ioctl(master, Self.numberRequest, &number) == 0, "cannot find the pty's number")
        let path = "/dev/pts/\(number)"
        let descriptor = open(path, O_RDWR | O_NOCTTY)
        try #require(descriptor >= 0, "cannot open the pty's slave")
        slave = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit {
        close(master)
    }

    /// Whether the terminal echoes input now (the child's setting, seen from the master).
    var echoIsOn: Bool {
        var settings = termios()
        guard tcgetattr(master, &settings) == 0 else { return true }
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Starts `medvault arguments…` on the terminal with the fast test KDF.
    func start(_ arguments: [String]) throws -> TestProcess {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", "--ctty", try CLIHarness.binary()] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MEDVAULT_TEST_FAST_KDF"] = "1"
        process.environment = environment
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        return process
    }

    /// Reads from the terminal until `text` appears in the transcript or `timeout` passes.
    @discardableResult
    func read(until text: String, timeoutSeconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !transcript.contains(text) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            drain(waitingMilliseconds: Int32(min(remaining * 1000, 100)))
        }
        return true
    }

    /// Reads whatever is available, waiting up to `waitingMilliseconds` for the first byte.
    func drain(waitingMilliseconds: Int32 = 0) {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, waitingMilliseconds) > 0, descriptor.revents & Int16(POLLIN) != 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Through the buffer's pointer: `read(master, &buffer, buffer.count)` reads the
            // array while it is being modified, which Swift's exclusivity checks stop with
            // a fatal error once this is inlined into an async caller (its locals then live
            // in the async frame, checked at run time).
            let count = buffer.withUnsafeMutableBytes { Foundation.read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            transcript += String(decoding: buffer[0..<count], as: UTF8.self)
        }
    }

    /// Types `text` on the terminal.
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Foundation.write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for `process`, reading its output meanwhile.
    func wait(for process: TestProcess, timeoutSeconds: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            drain(waitingMilliseconds: 10)
            if Date() > deadline {
                process.terminate()
                Issue.record("the interactive command did not finish")
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.waitUntilExit()
        drain()
    }
}
#endif
