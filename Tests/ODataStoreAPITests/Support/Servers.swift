// The real test servers (Tests/servers/README.md) for the API tests: odatapy (V4), pyslet (V2)
// and the fault proxy, started as child processes. Only Foundation and the public API here:
// this target tests the Swift API as an app sees it.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One server process. It prints `READY <url>` when it listens and stops when its stdin
/// reaches EOF (we hold the write end), so a crashed test run leaves nothing behind.
///
/// posix_spawn and waitpid rather than Foundation's `Process`: on Linux `waitUntilExit` spins
/// a run loop on the calling thread, and called from two async tests at once it held both of
/// the concurrency pool's threads on this 2-core machine and stalled the whole run.
final class Server: @unchecked Sendable {
    enum Kind: String { case v4, v2 }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let root: String
    private let pid: pid_t
    private let stdinWrite: Int32
    private let stopped = Mutex(false)

    static var repositoryRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }

    static func python() throws -> String {
        if let p = ProcessInfo.processInfo.environment["ODS_TEST_PYTHON"], !p.isEmpty { return p }
        let p = repositoryRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: p) else {
            throw Failure(description: "the test servers need \(p) (python3 -m venv .venv && .venv/bin/pip install -r Tests/servers/requirements.txt)")
        }
        return p
    }

    /// `serve.py v4|v2 [--page-size N]`.
    static func start(_ kind: Kind, pageSize: Int? = nil) throws -> Server {
        var args = ["serve.py", kind.rawValue]
        if let pageSize { args += ["--page-size", String(pageSize)] }
        return try Server(args)
    }

    /// The fault proxy in front of `upstream`.
    static func proxy(_ upstream: String) throws -> Server {
        try Server(["fault_proxy.py", "--upstream", upstream])
    }

    /// Pipes and spawn under one lock, close-on-exec: no other child started in parallel
    /// inherits our pipe ends (the server would never see EOF on its stdin).
    private static let spawnLock = Mutex(0)

    private init(_ arguments: [String]) throws {
        let python = try Self.python()
        let argv = [python, "-u", Self.repositoryRoot + "/Tests/servers/" + arguments[0]] + arguments.dropFirst()
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var child: pid_t = 0
        let rc = try Self.spawnLock.withLock { _ -> Int32 in
            guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
            for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, input[0], 0)
            posix_spawn_file_actions_adddup2(&actions, output[1], 1)
            var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
            cArgs.append(nil)
            defer { for a in cArgs { free(a) } }
            return posix_spawn(&child, python, &actions, nil, cArgs, environ)
        }
        close(input[0])
        close(output[1])
        defer { close(output[0]) }
        guard rc == 0 else {
            close(input[1])
            throw Failure(description: "posix_spawn \(python): error \(rc)")
        }
        // The READY line (the server exits, closing its stdout, when it cannot start).
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(output[0], &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        pid = child
        stdinWrite = input[1]
        guard text.hasPrefix("READY ") else {
            root = ""
            stop()
            throw Failure(description: "\(arguments.joined(separator: " ")) did not start: \(text)")
        }
        root = String(text.dropFirst("READY ".count))
    }

    deinit { stop() }

    /// Closes the server's stdin (it stops at EOF), sends SIGTERM and waits for it to exit.
    func stop() {
        let first = stopped.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        guard first else { return }
        close(stdinWrite)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    // MARK: Fault proxy control (one HTTP exchange on a fresh socket)

    /// Adds a rule: `["mode": "slow", "delay_ms": 60000, "match": "Products"]`.
    func addFault(_ rule: [String: Any]) throws {
        let body = try JSONSerialization.data(withJSONObject: rule)
        _ = try control("POST", body: body)
    }

    /// The proxy's counters (`requests`, `forwarded`, `faults`, ...).
    func faultCounters() throws -> [String: Any] {
        let data = try control("GET", body: Data())
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Returns once the proxy has applied `count` faults (a request is being held), asking it
    /// over and over; no sleeping. Yields between questions: the task that sends the request
    /// needs one of the concurrency pool's threads, and this machine has two.
    func waitForFaults(_ count: Int) async throws {
        for _ in 0..<100_000 {
            if let n = try faultCounters()["faults"] as? Int, n >= count { return }
            await Task.yield()
        }
        throw Failure(description: "the proxy never applied \(count) fault(s)")
    }

    private func control(_ method: String, body: Data) throws -> Data {
        let url = URL(string: root)!
        let port = UInt16(url.port ?? 80)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to the proxy") }
        let head = "\(method) /__fault HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        let request = Data(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send") }
            sent += n
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "not HTTP") }
        let status = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        guard status.hasPrefix("HTTP/1.1 200") || status.hasPrefix("HTTP/1.0 200") else {
            throw Failure(description: "proxy control: \(status.prefix(60))")
        }
        return response[split.upperBound...]
    }
}

/// A fresh file path in a new temporary directory.
func temporaryPath(_ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ods-swift-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}
