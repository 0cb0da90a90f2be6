/// The HTTP method for a request mode, by protocol version.
enum HTTPMethodChoice {
    static func method(for mode: RequestMode, version: ODataVersion, operation: Operation?, hasBody: Bool) -> String {
        switch mode {
        case .read: return "GET"
        case .create: return "POST"
        case .update, .updateMerge: return version == .v2 ? "MERGE" : "PATCH"
        case .updatePatch: return "PATCH"
        case .updatePut: return "PUT"
        case .delete: return "DELETE"
        case .function:
            if let operation { return operation.httpMethod.uppercased() }
            return hasBody ? "POST" : "GET"
        }
    }
}
