/// Reading an entity back when the service refused a change in a way an earlier, applied
/// attempt of the same change would explain (an update refused with 412 because the first
/// attempt changed the ETag; a create with the app's key refused with 409 because the first
/// attempt made it). The change counts as done when the service's entity has every value
/// that was sent; otherwise it goes to the error archive with the service's refusal.
extension Upload {
    /// Reads `path` and settles the change; `done(false)` stops the upload (the read failed
    /// for want of the service). `done` runs on the database queue.
    func verify(_ change: QueuedChange, _ out: Outgoing, table: EntityTable, path: String, refusal: ODataStoreError,
                _ done: @escaping @Sendable (Bool) -> Void) {
        let url: String
        do {
            url = try RequestURL.make(serviceRoot: session.serviceRoot, path: path)
        } catch {
            return settle(change, out, table: table, refusal: refusal, read: nil, done)
        }
        let job = RequestJob(id: 0, mode: .read, path: path, url: url, body: nil, headers: [], etag: nil, paging: .none,
                             timeoutMilliseconds: 0)
        _ = online.execute(job) { [self] result in
            let queued = store.queue.async { [self] in
                switch result {
                case .success(let response):
                    settle(change, out, table: table, refusal: refusal, read: response, done)
                case .failure(let f) where (400..<500).contains(f.error.httpStatus):
                    settle(change, out, table: table, refusal: refusal, read: nil, done)
                case .failure:
                    done(false)
                }
            }
            if !queued { done(false) }
        }
    }

    private func settle(_ change: QueuedChange, _ out: Outgoing, table: EntityTable, refusal: ODataStoreError, read: Response?,
                        _ done: @escaping @Sendable (Bool) -> Void) {
        do throws(ODataStoreError) {
            let file = try store.requireFile()
            if let read, Self.has(read.json, everythingIn: out.body) {
                try confirm(change, out, table: table, response: read, file: file)
            } else {
                try archive(change, table: table, file: file, method: out.method, body: out.body, status: refusal.httpStatus,
                            code: refusal.odataCode, message: refusal.message)
            }
            done(true)
        } catch {
            done(false)
        }
    }

    /// True when the entity (canonical JSON) has each property of `body` with the same value
    /// (numbers compared by value: `70.70` is `70.7`).
    static func has(_ entity: String, everythingIn body: String?) -> Bool {
        guard case .object(let e)? = try? JSONValue.parse(entity) else { return false }
        guard let body else { return true }
        guard case .object(let sent)? = try? JSONValue.parse(body) else { return false }
        for (name, value) in sent where !name.hasPrefix("@") {
            guard let have = e[name], same(have, value) else { return false }
        }
        return true
    }

    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        switch (a, b) {
        case (.number(let x), .number(let y)), (.string(let x), .number(let y)), (.number(let x), .string(let y)),
             (.string(let x), .string(let y)):
            guard let p = numeric(x), let q = numeric(y) else { return false }
            return p == q
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { same(v, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default:
            return false
        }
    }

    /// A decimal number's text without insignificant zeros (`070.50` -> `70.5`); nil when it
    /// is not a plain decimal number.
    private static func numeric(_ text: String) -> String? {
        var t = Substring(text)
        var sign = ""
        if t.first == "-" || t.first == "+" { sign = t.first == "-" ? "-" : ""; t = t.dropFirst() }
        let parts = t.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !t.isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        var whole = String(parts[0].drop { $0 == "0" })
        if whole.isEmpty { whole = "0" }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        while fraction.last == "0" { fraction.removeLast() }
        let n = fraction.isEmpty ? whole : whole + "." + fraction
        return n == "0" ? "0" : sign + n
    }
}
