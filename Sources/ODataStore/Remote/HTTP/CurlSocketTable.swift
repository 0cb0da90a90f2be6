#if canImport(Glibc)
import Glibc
#endif
import CCurl

/// What the transport thread sleeps on: the sockets libcurl asks it to watch
/// (CURLMOPT_SOCKETFUNCTION) and libcurl's one timer (CURLMOPT_TIMERFUNCTION), kept as the
/// `pollfd` array for poll(): entry 0 is the read end of the worker's wake-up pipe, the
/// others are libcurl's sockets with the events libcurl wants on them.
///
/// Why not curl_multi_perform + curl_multi_poll: with libcurl 7.88 every perform pass runs
/// every transfer, and each transfer in the PERFORM state polls its own socket (about 18
/// poll() calls per GET with 8 in flight). Driven by `curl_multi_socket_action` with the
/// events poll() saw, libcurl runs only the transfers on that socket and polls none; timers
/// (timeouts, new transfers) run only the transfers whose timer expired.
///
/// Thread confinement: the transport thread only. libcurl calls the two callbacks from
/// inside curl_multi_add_handle / remove_handle / socket_action / cleanup, all made by the
/// worker on that thread; they reach the table through an unretained pointer that the
/// worker keeps alive until curl_multi_cleanup has returned.
final class CurlSocketTable {
    /// poll()'s array: [0] the wake-up pipe, then libcurl's sockets (any order).
    @exclusivity(unchecked) var fds: [pollfd]
    /// `MonotonicClock` time at which libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT);
    /// nil: no timer.
    @exclusivity(unchecked) var timerDeadline: UInt64?
    /// Set by every timer callback (the worker checks whether libcurl renewed its timer).
    @exclusivity(unchecked) var timerUpdated = false

    init(wakeFD: Int32) {
        fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        fds.reserveCapacity(16)
    }

    /// Whether libcurl's timer has expired.
    func timerDue(now: UInt64) -> Bool {
        guard let timerDeadline else { return false }
        return timerDeadline <= now
    }

    /// poll()'s timeout in milliseconds: until the timer, at most `limit`.
    func pollTimeout(limit: Int32, now: UInt64) -> Int32 {
        guard let timerDeadline else { return limit }
        if timerDeadline <= now { return 0 }
        let ms = (timerDeadline - now + 999_999) / 1_000_000
        return Int32(min(UInt64(limit), ms))
    }

    /// CURLMOPT_SOCKETFUNCTION: watch `socket` for `what` (CURL_POLL_*), or stop watching it.
    func update(_ socket: Int32, what: Int32) {
        var index = 1
        while index < fds.count, fds[index].fd != socket { index += 1 }
        if what == CURL_POLL_REMOVE {
            if index < fds.count {
                fds.swapAt(index, fds.count - 1)
                fds.removeLast()
            }
            return
        }
        var events: Int16 = 0
        if what & CURL_POLL_IN != 0 { events |= Int16(POLLIN) }
        if what & CURL_POLL_OUT != 0 { events |= Int16(POLLOUT) }
        if index < fds.count {
            fds[index].events = events
        } else {
            fds.append(pollfd(fd: socket, events: events, revents: 0))
        }
    }

    /// CURLMOPT_TIMERFUNCTION: -1 removes the timer, 0 means at once.
    func setTimer(milliseconds: Int) {
        timerUpdated = true
        timerDeadline = milliseconds < 0 ? nil : MonotonicClock.deadline(afterMilliseconds: milliseconds)
    }

    /// Registers the callbacks on `multi` (the table must outlive the multi handle).
    func install(on multi: UnsafeMutableRawPointer) -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        return ods_curl_multi_setopt_socket_cb(multi, curlSocketCallback) == CURLM_OK
            && ods_curl_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, me) == CURLM_OK
            && ods_curl_multi_setopt_timer_cb(multi, curlTimerCallback) == CURLM_OK
            && ods_curl_multi_setopt_ptr(multi, CURLMOPT_TIMERDATA, me) == CURLM_OK
    }
}

/// The CURL_CSELECT_* bits for curl_multi_socket_action from poll()'s `revents`.
func curlSelectBits(_ revents: Int16) -> Int32 {
    var mask: Int32 = 0
    if revents & Int16(POLLIN) != 0 { mask |= CURL_CSELECT_IN }
    if revents & Int16(POLLOUT) != 0 { mask |= CURL_CSELECT_OUT }
    if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { mask |= CURL_CSELECT_ERR | CURL_CSELECT_IN }
    return mask
}

// MARK: - libcurl callbacks (C calling convention; no Swift error or trap crosses them)

private let curlSocketCallback: curl_socket_callback = { _, socket, what, table, _ in
    guard let table else { return -1 }
    Unmanaged<CurlSocketTable>.fromOpaque(table).takeUnretainedValue().update(socket, what: what)
    return 0
}

private let curlTimerCallback: curl_multi_timer_callback = { _, milliseconds, table in
    guard let table else { return -1 }
    Unmanaged<CurlSocketTable>.fromOpaque(table).takeUnretainedValue().setTimer(milliseconds: milliseconds)
    return 0
}
