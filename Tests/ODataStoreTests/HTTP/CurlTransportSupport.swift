#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@testable import ODataStore

/// Sends one request and waits for its completion.
func perform(_ transport: CurlTransport, _ request: HTTPRequest) async -> Result<HTTPResponse, HTTPTransportError> {
    await withCheckedContinuation { continuation in
        transport.send(request) { continuation.resume(returning: $0) }
    }
}

func get(_ transport: CurlTransport, _ url: String, headers: [(name: String, value: String)] = [],
         timeoutMilliseconds: Int = 0) async -> Result<HTTPResponse, HTTPTransportError> {
    await perform(transport, HTTPRequest(method: "GET", url: url, headers: headers,
                                         timeoutMilliseconds: timeoutMilliseconds))
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension Result where Success == HTTPResponse, Failure == HTTPTransportError {
    /// The response, or nil (the test then records the error it got).
    var response: HTTPResponse? {
        if case .success(let response) = self { return response }
        return nil
    }

    var error: HTTPTransportError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var isIOError: Bool {
        if case .failure(.io) = self { return true }
        return false
    }
}

/// Records every completion of many sends, keyed by the caller's own index (a completion
/// may run before `send` has returned the id).
final class CompletionRecorder: Sendable {
    private let results = Locked<[Int: [Result<HTTPResponse, HTTPTransportError>]]>([:])

    func record(_ index: Int, _ result: Result<HTTPResponse, HTTPTransportError>) {
        results.withLock { $0[index, default: []].append(result) }
    }

    func snapshot() -> [Int: [Result<HTTPResponse, HTTPTransportError>]] {
        results.withLock { $0 }
    }
}

/// A port on 127.0.0.1 where nothing listens (bound, then closed again).
func closedLocalPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            _ = bind(fd, pointer, length)
            return getsockname(fd, pointer, &length)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

func sleepMilliseconds(_ ms: Int) async {
    try? await Task.sleep(nanoseconds: UInt64(ms) * 1_000_000)
}
