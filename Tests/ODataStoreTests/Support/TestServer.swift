#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@testable import ODataStore

/// A real test server process (Tests/servers): the odatapy V4 service, the pyslet V2 service
/// or the fault proxy, started with posix_spawn and stopped on `stop()` or deinit.
///
/// The launcher contract (Tests/servers/README.md): the child prints `READY <url>` when it
/// listens and stops when its stdin reaches EOF. We hold the write end of its stdin, so a
/// crashed test process never leaves a server behind.
///
/// Python comes from `ODS_TEST_PYTHON`, else `<repo>/.venv/bin/python`. When neither exists,
/// `start` throws with the setup command: tests that need servers fail, never skip.
///
/// Threading: `stop()` may be called from any thread, any number of times.
final class TestServer: Sendable {
    enum Kind: Sendable {
        case v4
        case v2
        /// The V4 service with data chosen to trip up query evaluators (tricky_service.py).
        case v4tricky
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The service root printed by the server, always ending in "/".
    let serviceRoot: String
    /// `http://127.0.0.1:<port>` of the server.
    let origin: String
    let port: Int
    let pid: pid_t

    private struct Pipes {
        var stdinWrite: Int32
        var stdoutRead: Int32
        var stopped: Bool
    }

    private let pipes: Locked<Pipes>

    /// Starts an OData service (`serve.py v4|v2`).
    static func start(_ kind: Kind, pageSize: Int? = nil, products: Int? = nil, timeoutSeconds: Int = 60) throws -> TestServer {
        var args = ["serve.py", kind == .v4 ? "v4" : (kind == .v2 ? "v2" : "v4tricky")]
        if let pageSize { args += ["--page-size", String(pageSize)] }
        if let products { args += ["--products", String(products)] }
        return try TestServer(arguments: args, timeoutSeconds: timeoutSeconds)
    }

    /// Starts the fault proxy in front of `upstream` (a service root URL).
    static func faultProxy(upstream: String, timeoutSeconds: Int = 30) throws -> TestServer {
        try TestServer(arguments: ["fault_proxy.py", "--upstream", upstream], timeoutSeconds: timeoutSeconds)
    }

    /// Repository root, from this file's location (Tests/ODataStoreTests/Support/).
    static var repositoryRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }

    static func pythonPath() throws -> String {
        if let env = getenv("ODS_TEST_PYTHON"), env.pointee != 0 {
            let path = String(cString: env)
            guard access(path, X_OK) == 0 else {
                throw Failure(description: "ODS_TEST_PYTHON=\(path) is not executable")
            }
            return path
        }
        let path = repositoryRoot + "/.venv/bin/python"
        guard access(path, X_OK) == 0 else {
            throw Failure(description: """
                The test servers need a Python venv at \(path) (or ODS_TEST_PYTHON). Create it with:
                  cd \(repositoryRoot) && python3 -m venv .venv && .venv/bin/pip install -r Tests/servers/requirements.txt
                """)
        }
        return path
    }

    private init(arguments: [String], timeoutSeconds: Int) throws {
        let python = try Self.pythonPath()
        let script = Self.repositoryRoot + "/Tests/servers/" + arguments[0]
        let argv = [python, "-u", script] + arguments.dropFirst()

        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var child: pid_t = 0
        // Close-on-exec pipes, created and spawned under one lock: no other child (another
        // server started in parallel) inherits our pipe ends, or the server would not see
        // EOF when we close its stdin. (pipe2 is not imported into Swift from Glibc.)
        let rc: Int32 = try Self.spawnLock.withLock { _ in
            guard Self.cloexecPipe(&stdinPipe) else { throw Failure(description: "pipe: errno \(errno)") }
            guard Self.cloexecPipe(&stdoutPipe) else {
                close(stdinPipe[0]); close(stdinPipe[1])
                throw Failure(description: "pipe: errno \(errno)")
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
            posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
            // stderr is inherited: server logs and tracebacks show up in the test output.

            var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
            cArgs.append(nil)
            defer { for p in cArgs { free(p) } }
            return posix_spawn(&child, python, &actions, nil, cArgs, environ)
        }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        guard rc == 0 else {
            close(stdinPipe[1]); close(stdoutPipe[0])
            throw Failure(description: "posix_spawn \(python): error \(rc)")
        }

        // Wait for the READY line.
        var line: [UInt8] = []
        var failure: String?
        let deadline = Self.nowMilliseconds() + timeoutSeconds * 1000
        readLoop: while true {
            let remaining = deadline - Self.nowMilliseconds()
            if remaining <= 0 {
                failure = "no READY line within \(timeoutSeconds) s"
                break
            }
            var pfd = pollfd(fd: stdoutPipe[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining, 1000)))
            if ready < 0 {
                if errno == EINTR { continue }
                failure = "poll: errno \(errno)"
                break
            }
            if ready == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = read(stdoutPipe[0], &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                failure = "read: errno \(errno)"
                break
            }
            if n == 0 {
                failure = "the server exited before it was ready (see its stderr above)"
                break
            }
            for byte in buffer[0..<n] {
                if byte == UInt8(ascii: "\n") { break readLoop }
                line.append(byte)
            }
        }
        let text = String(decoding: line, as: UTF8.self)
        if failure == nil, !text.hasPrefix("READY ") {
            failure = "unexpected first line from the server: \(text)"
        }
        if let failure {
            close(stdinPipe[1])
            close(stdoutPipe[0])
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw Failure(description: "\(arguments.joined(separator: " ")): \(failure)")
        }

        let url = String(text.dropFirst("READY ".count))
        serviceRoot = url
        // "http://127.0.0.1:PORT/path/" -> origin and port
        let afterScheme = url.dropFirst("http://".count)
        let hostPort = afterScheme.prefix { $0 != "/" }
        origin = "http://" + hostPort
        port = Int(hostPort.split(separator: ":").last ?? "") ?? 0
        pid = child
        pipes = Locked(Pipes(stdinWrite: stdinPipe[1], stdoutRead: stdoutPipe[0], stopped: false))
    }

    deinit {
        stop()
    }

    /// Stops the server: closes its stdin, sends SIGTERM, waits for it (SIGKILL after 10 s).
    func stop() {
        let fds: (Int32, Int32)? = pipes.withLock { p in
            if p.stopped { return nil }
            p.stopped = true
            return (p.stdinWrite, p.stdoutRead)
        }
        guard let (stdinWrite, stdoutRead) = fds else { return }
        close(stdinWrite)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Self.nowMilliseconds() + 10_000
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Self.nowMilliseconds() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        close(stdoutRead)
    }

    // MARK: - Fault proxy control (plain sockets: independent of the transport under test)

    /// Adds a fault rule on a fault proxy (see Tests/servers/README.md for the fields).
    func setFault(_ mode: String, count: Int? = nil, delayMilliseconds: Int? = nil,
                  match: String? = nil, authorization: String? = nil, status: Int? = nil, retryAfter: String? = nil,
                  headers: [(String, String)]? = nil, body responseBody: String? = nil,
                  inflatedBytes: Int? = nil) throws {
        var fields = ["\"mode\":\(Self.jsonString(mode))"]
        if let inflatedBytes { fields.append("\"inflated_bytes\":\(inflatedBytes)") }
        if let headers {
            fields.append("\"headers\":[" + headers.map { "[\(Self.jsonString($0.0)),\(Self.jsonString($0.1))]" }.joined(separator: ",") + "]")
        }
        if let responseBody { fields.append("\"body\":\(Self.jsonString(responseBody))") }
        if let count { fields.append("\"count\":\(count)") }
        if let status { fields.append("\"status\":\(status)") }
        if let retryAfter { fields.append("\"retry_after\":\(Self.jsonString(retryAfter))") }
        if let delayMilliseconds { fields.append("\"delay_ms\":\(delayMilliseconds)") }
        if let match { fields.append("\"match\":\(Self.jsonString(match))") }
        if let authorization { fields.append("\"authorization\":\(Self.jsonString(authorization))") }
        let body = "{" + fields.joined(separator: ",") + "}"
        let (status, reply) = try rawRequest("POST", "/__fault", body: Array(body.utf8))
        guard status == 200 else {
            throw Failure(description: "POST /__fault \(body): \(status) \(String(decoding: reply, as: UTF8.self))")
        }
    }

    /// Removes all fault rules.
    func clearFaults() throws {
        let (status, _) = try rawRequest("DELETE", "/__fault")
        guard status == 200 else { throw Failure(description: "DELETE /__fault: \(status)") }
    }

    /// The proxy's state as JSON text (rules and counters).
    func faultState() throws -> String {
        let (status, body) = try rawRequest("GET", "/__fault")
        guard status == 200 else { throw Failure(description: "GET /__fault: \(status)") }
        return String(decoding: body, as: UTF8.self)
    }

    /// One HTTP/1.1 exchange over a fresh socket (`Connection: close`). For harness control
    /// and server smoke checks only: it reads until the server closes the connection.
    func rawRequest(_ method: String, _ target: String, body: [UInt8] = [],
                    headers: [(String, String)] = []) throws -> (status: Int, body: [UInt8]) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to \(origin): errno \(errno)") }

        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "recv: errno \(errno)")
            }
            if n == 0 { break }
            response += buffer[0..<n]
        }
        // "HTTP/1.1 200 OK\r\n...\r\n\r\nbody"
        guard response.count >= 12,
              let status = Int(String(decoding: response[9..<12], as: UTF8.self)) else {
            throw Failure(description: "\(method) \(target): not an HTTP response")
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var bodyStart = response.count
        if response.count >= 4 {
            for i in 0...(response.count - 4) where Array(response[i..<(i + 4)]) == separator {
                bodyStart = i + 4
                break
            }
        }
        return (status, Array(response[bodyStart...]))
    }

    private static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static let spawnLock = Locked<Bool>(false)  // not Void: a zero-sized value shares its address with the mutex pointer, which confuses TSan

    private static func cloexecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    static func nowMilliseconds() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.tv_sec * 1000 + ts.tv_nsec / 1_000_000
    }
}
