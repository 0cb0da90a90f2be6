/// Checks a request's mode, path and body when it is created, so that bad input fails
/// synchronously with a clear message instead of reaching the service.
enum RequestValidation {
    static let maximumPathLength = 64 * 1024

    static func check(mode: RequestMode, path: String, body: String?) throws(ODataStoreError) {
        // "" is the service document (the root itself), as "/" is.
        guard path.utf8.count <= maximumPathLength else {
            throw .invalid("the resource path is longer than \(maximumPathLength) bytes")
        }
        var bytes = path
        let problem = bytes.withUTF8 { p -> ODataStoreError? in
            for offset in 0..<p.count {
                let c = p[offset]
                if c < 0x20 || c == 0x7F || c == UInt8(ascii: "#") {
                    return ODataStoreError(.invalidArgument,
                                           "the resource path contains \(c == UInt8(ascii: "#") ? "a fragment ('#')" : "a control character") at position \(offset)",
                                           position: offset)
                }
            }
            return unbalanced(p)
        }
        if let problem { throw problem }
        switch (mode.requiresBody, body) {
        case (true, nil):
            throw .invalid("a \(name(of: mode)) request needs a JSON body")
        case (false, .some) where mode == .read || mode == .delete:
            throw .invalid("a \(name(of: mode)) request takes no body")
        default:
            break
        }
        guard let body else { return }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw ODataStoreError(.invalidArgument, "the body is not valid JSON: \(error)")
        }
        if mode.requiresBody, case .object = value {} else if mode.requiresBody {
            throw .invalid("the body of a \(name(of: mode)) request must be a JSON object")
        }
    }

    /// Parentheses and single quotes in the resource part must balance ("Products(1" is
    /// malformed); the query part is left to the service.
    private static func unbalanced(_ path: UnsafeBufferPointer<UInt8>) -> ODataStoreError? {
        var depth = 0
        var quoted = false
        var offset = 0
        for c in path {
            if c == UInt8(ascii: "?") && !quoted { break }
            if c == UInt8(ascii: "'") { quoted.toggle() }
            if !quoted {
                if c == UInt8(ascii: "(") { depth += 1 }
                if c == UInt8(ascii: ")") {
                    depth -= 1
                    if depth < 0 {
                        return ODataStoreError(.invalidArgument, "malformed resource path: unmatched ')' at position \(offset)", position: offset)
                    }
                }
            }
            offset += 1
        }
        if quoted { return ODataStoreError(.invalidArgument, "malformed resource path: unterminated string literal", position: offset) }
        if depth != 0 { return ODataStoreError(.invalidArgument, "malformed resource path: missing ')'", position: offset) }
        return nil
    }

    static func name(of mode: RequestMode) -> String {
        switch mode {
        case .read: "READ"
        case .create: "CREATE"
        case .update, .updatePut, .updateMerge, .updatePatch: "UPDATE"
        case .delete: "DELETE"
        case .function: "FUNCTION"
        }
    }
}
