import Glibc

/// A pipe used as a level indicator for queue-mode stores: its read end is readable while
/// callbacks wait. The owner raises it when its queue becomes non-empty and lowers it when
/// it drains (both under the owner's lock, so the level always matches the queue).
/// A pipe rather than an eventfd: plain POSIX, and every event loop can watch it.
final class ReadinessPipe: @unchecked Sendable {
    /// The end the host polls.
    let readEnd: Int32
    private let writeEnd: Int32
    private var raised = false

    init() throws(ODataStoreError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw ODataStoreError(.io, "pipe failed: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes the read end readable. Caller holds the owner's lock.
    func raise() {
        guard !raised else { return }
        var byte: UInt8 = 1
        if write(writeEnd, &byte, 1) == 1 { raised = true }
    }

    /// Makes the read end not readable. Caller holds the owner's lock.
    func lower() {
        guard raised else { return }
        var buffer = [UInt8](repeating: 0, count: 16)
        while read(readEnd, &buffer, buffer.count) > 0 {}
        raised = false
    }
}
