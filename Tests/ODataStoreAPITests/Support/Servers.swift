// The real test servers (Tests/servers/README.md) for the API tests: odatapy (V4), pyslet (V2)
// and the fault proxy, started as child processes. Only Foundation and the public API here:
// this target tests the Swift API as an app sees it.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One server process. It prints `READY <url>` when it listens and stops when its stdin
/// reaches EOF (we hold the write end), so a crashed test run leaves nothing behind.
final class Server: @unchecked Sendable {
    enum Kind: String { case v4, v2 }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let root: String
    private let process: Process
    private let stdin: Pipe

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

    private init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.python())
        process.arguments = ["-u", Self.repositoryRoot + "/Tests/servers/" + arguments[0]] + arguments.dropFirst()
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The READY line (the server exits, closing stdout, if it cannot start).
        var line: [UInt8] = []
        let handle = stdout.fileHandleForReading
        while true {
            let chunk = handle.readData(ofLength: 1)
            if chunk.isEmpty || chunk.first == UInt8(ascii: "\n") { break }
            line.append(contentsOf: chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY ") else {
            process.terminate()
            throw Failure(description: "\(arguments.joined(separator: " ")) did not start: \(text)")
        }
        root = String(text.dropFirst("READY ".count))
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        try? stdin.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
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
    /// over and over; no sleeping.
    func waitForFaults(_ count: Int) throws {
        for _ in 0..<100_000 {
            if let n = try faultCounters()["faults"] as? Int, n >= count { return }
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
