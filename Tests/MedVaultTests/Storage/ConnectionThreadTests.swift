import Foundation
@testable import MedVault
import Testing

/// The connection thread as a task executor (a background checkpoint round prefers it).
@Suite("Connection thread: jobs after stop")
struct ConnectionThreadTests {
    @Test("A job enqueued after the thread stopped and exited still runs, on a thread of the same name")
    func jobAfterStopRuns() async throws {
        guard #available(macOS 15.0, iOS 18.0, *) else { return }
        let thread = ConnectionThread(name: "medvault.test")
        let first = await Task.detached(executorPreference: thread) { ThreadNames.current() }.value
        #expect(first == "medvault.test")
        thread.stop()
        // Let the thread see the stop and exit (nothing is queued).
        try await Task.sleep(for: .milliseconds(100))
        // A task resuming on the executor after that, as a round would after close().
        let ran = Gate()
        let names = ThreadNames()
        Task.detached(executorPreference: thread) {
            names.append(ThreadNames.current())
            ran.open()
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !ran.isOpened && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(names.all == ["medvault.test"])
        // A job that never ran would make the next await hang: stop here instead.
        try #require(ran.isOpened)
        // And the relaunched thread exits again: a later job starts yet another one.
        try await Task.sleep(for: .milliseconds(100))
        let third = await Task.detached(executorPreference: thread) { ThreadNames.current() }.value
        #expect(third == "medvault.test")
    }
}
