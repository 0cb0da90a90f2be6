import Glibc
import Synchronization

/// How much a log message matters; a handler set for a level gets that level and the ones
/// above it (`.info` gets errors, warnings and info). The raw values are the C `ODS_LOG_*`.
public enum LogLevel: Int32, Sendable, Comparable, CaseIterable {
    case error = 1
    case warning = 2
    case info = 3
    case debug = 4

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .info: "info"
        case .debug: "debug"
        }
    }
}

/// What part of the library a message comes from (a fixed, short lowercase word: a logging
/// framework can use it as a child logger's name).
public enum LogCategory: String, Sendable, CaseIterable {
    case store, http, retry, logon, csrf, download, upload
    /// Requests answered from an offline store's file (info), and a mixed store's choice of
    /// side per request (`route`, debug).
    case local, route
}

/// One message: borrowed by the handler for the call (copy what you keep).
public struct LogRecord: Sendable {
    public let level: LogLevel
    public let category: LogCategory
    public let message: String
}

/// The library's log: one handler for the whole process (docs/logging.md).
///
/// Process-wide rather than per store: much of what is worth logging (the HTTP transport's
/// retries, a download's steps, stores opening) happens where no app context is at hand, an
/// app wants one sink for all its stores, and every logging library it would forward to is
/// process-wide as well (sqlite3_config(SQLITE_CONFIG_LOG), libgit2's git_trace_set).
///
/// - Off by default. When off, or for a level above the handler's, a log call costs one
///   relaxed atomic load and a compare: the message (an autoclosure) is never built.
/// - The handler is called on whatever thread logs (the transport's thread, the offline
///   store's database thread, the app's thread), never under a lock of the library.
/// - Messages never carry credentials: no header values, passwords in URLs are replaced by
///   `*` (`URLRedaction`), logon replies are logged by kind only.
/// - `setHandler` is thread-safe. When it returns, no call of a replaced handler is running
///   or will begin (calls in flight are waited for), except when `setHandler` is called from
///   inside a log handler: then it does not wait (it cannot wait for itself, nor for another
///   thread that waits for it), and calls already running on other threads finish.
public enum ODataStoreLog {
    public typealias Handler = @Sendable (LogRecord) -> Void

    /// The most detailed level that reaches the handler (`LogLevel.rawValue`), 0 when off.
    @usableFromInline static let threshold = Atomic<Int32>(0)
    private static let slot = LogSlot()

    /// Sets (or with nil removes) the process's log handler; `level` is the most detailed
    /// level it gets.
    public static func setHandler(level: LogLevel, _ handler: Handler?) {
        slot.set(handler.map { LogSlot.Entry(level: level, handler: $0) })
    }

    /// The level of the current handler, nil when logging is off.
    public static var level: LogLevel? { LogLevel(rawValue: threshold.load(ordering: .relaxed)) }

    /// True when a message of `level` would reach a handler (a check for a caller that
    /// prepares what it logs, e.g. takes a start time).
    @inline(__always)
    public static func isEnabled(_ level: LogLevel) -> Bool {
        threshold.load(ordering: .relaxed) >= level.rawValue
    }

    /// Logs a message of the app's own through the library's handler.
    public static func log(_ level: LogLevel, _ category: LogCategory, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        slot.emit(LogRecord(level: level, category: category, message: message()))
    }

    fileprivate static func publish(_ level: Int32) { threshold.store(level, ordering: .relaxed) }
}

/// The library's own call sites: `Log.info(.http, "...")`. The message is built only when a
/// handler wants that level.
enum Log {
    @inline(__always) static func error(_ c: LogCategory, _ m: @autoclosure () -> String) { at(.error, c, m) }
    @inline(__always) static func warning(_ c: LogCategory, _ m: @autoclosure () -> String) { at(.warning, c, m) }
    @inline(__always) static func info(_ c: LogCategory, _ m: @autoclosure () -> String) { at(.info, c, m) }
    @inline(__always) static func debug(_ c: LogCategory, _ m: @autoclosure () -> String) { at(.debug, c, m) }
    @inline(__always) static func enabled(_ level: LogLevel) -> Bool { ODataStoreLog.isEnabled(level) }

    @inline(__always)
    private static func at(_ level: LogLevel, _ c: LogCategory, _ m: () -> String) {
        guard ODataStoreLog.isEnabled(level) else { return }
        ODataStoreLog.log(level, c, m())
    }

    /// A URL as it may appear in a message (a password in it replaced by `*`).
    static func url(_ url: String) -> String { URLRedaction.redactingPassword(url) }

    /// Milliseconds since a `MonotonicClock.now()` reading, with one decimal.
    static func elapsed(since start: UInt64) -> String {
        let tenths = (MonotonicClock.now() &- start) / 100_000
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}

/// The handler and the calls running it. A call registers itself (its thread and a sequence
/// number) under the lock, runs the handler without it, and unregisters; `set` swaps the
/// entry and waits until every call that began before the swap has returned (unless it is
/// itself inside a call). Calls that begin after the swap use the new entry and are not
/// waited for, so a steady stream of messages cannot keep `set` waiting.
private final class LogSlot: @unchecked Sendable {
    final class Entry: Sendable {
        let level: LogLevel
        let handler: ODataStoreLog.Handler
        init(level: LogLevel, handler: @escaping ODataStoreLog.Handler) {
            self.level = level
            self.handler = handler
        }
    }

    private let lock = ConditionLock()
    // Under `lock`.
    private var entry: Entry?
    private var nextCall: UInt64 = 0
    private var running: [(thread: pthread_t, call: UInt64)] = []

    func set(_ new: Entry?) {
        let me = pthread_self()
        lock.lock()
        let old = entry
        entry = new
        ODataStoreLog.publish(new?.level.rawValue ?? 0)
        let swapped = nextCall
        if !running.contains(where: { pthread_equal($0.thread, me) != 0 }) {
            while running.contains(where: { $0.call < swapped }) { lock.wait() }
        }
        lock.unlock()
        // `old` is released here, outside the lock (its closure may own app state).
        _ = old
    }

    func emit(_ record: LogRecord) {
        let me = pthread_self()
        lock.lock()
        guard let current = entry, record.level <= current.level else {
            lock.unlock()
            return
        }
        let call = nextCall
        nextCall += 1
        running.append((me, call))
        lock.unlock()
        current.handler(record)
        lock.lock()
        if let i = running.firstIndex(where: { $0.call == call }) { running.remove(at: i) }
        lock.broadcast()
        lock.unlock()
    }
}
