/// A gate for test transports: ``wait()`` suspends until ``release()``, after which it
/// returns at once.
actor TestGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}
