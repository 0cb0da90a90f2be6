import CODataStoreABI
import Glibc
import ODataStore

/// The logon fields of `ods_store_options` (version 3): the prompt callback, its flags and
/// the bounds on logon attempts and held requests. Zero fields keep their defaults.
func readLogonOptions(_ o: ods_store_options, into options: inout StoreOptions) throws(ODataStoreError) {
    guard o.version >= 3 else { return }
    if o.logon_flags & ~Int32(ODS_LOGON_LOGIN_PAGE.rawValue) != 0 {
        throw ODataStoreError(.invalidArgument, "options->logon_flags has bits that are not ods_logon_flag values")
    }
    options.sessionExpiredOnLoginPage = o.logon_flags & Int32(ODS_LOGON_LOGIN_PAGE.rawValue) != 0
    switch o.max_logon_attempts {
    case 0: break
    case 1...10: options.maxLogonAttempts = Int(o.max_logon_attempts)
    default: throw ODataStoreError(.invalidArgument, "options->max_logon_attempts must be 0 (default 3) or 1 to 10")
    }
    if o.max_held_requests < 0 { throw ODataStoreError(.invalidArgument, "options->max_held_requests must not be negative") }
    if o.max_held_requests > 0 { options.limits.maxHeldRequests = Int(o.max_held_requests) }
    if let callback = o.logon {
        let fn = CFunction(function: callback)
        let ctx = CContext(pointer: o.logon_context)
        options.logonHandler = { store, challenge in
            withExtendedLifetime(store) {
                withLogonInfo(challenge) { fn.function(Handle.pointer(store), $0, ctx.pointer) }
            }
        }
    }
}

/// An `ods_logon_info` for the duration of `body` (its string borrowed from a local copy).
private func withLogonInfo(_ c: LogonChallenge, _ body: (UnsafePointer<ods_logon_info>) -> Void) {
    func call(_ authenticate: UnsafePointer<CChar>?) {
        var info = ods_logon_info(version: UInt32(ODS_LOGON_INFO_VERSION), id: c.id, reason: c.reason.rawValue,
                                  http_status: Int32(clamping: c.httpStatus), authenticate: authenticate,
                                  attempt: Int32(clamping: c.attempt))
        withUnsafePointer(to: &info) { body($0) }
    }
    if let text = c.authenticate {
        text.withCString { call($0) }
    } else {
        call(nil)
    }
}

/// Answers prompt `id` of `handle`'s store (the shared checks of the four replies).
private func answer(_ handle: OpaquePointer?, _ id: UInt64, _ reply: () throws(ODataStoreError) -> LogonReply) -> Int32 {
    status { () throws(ODataStoreError) in
        // Referenced under the registry's lock: a reply racing ods_store_close is safe.
        guard let handle, let store = HandleRegistry.retainedStore(handle) else {
            throw ODataStoreError(.invalidArgument, "store is NULL or not an open store (closed already? a prompt ends with its store)")
        }
        try store.logon(id, reply: try reply())
    }
}

@c @implementation
public func ods_store_logon_basic(_ handle: OpaquePointer?, _ id: UInt64, _ username: UnsafePointer<CChar>?,
                                  _ password: UnsafePointer<CChar>?) -> Int32 {
    answer(handle, id) { () throws(ODataStoreError) in
        let user = try CString.required(username, "username")
        guard !user.isEmpty else { throw ODataStoreError(.invalidArgument, "username must not be empty") }
        return .basic(username: user, password: try CString.read(password, "password") ?? "")
    }
}

@c @implementation
public func ods_store_logon_bearer(_ handle: OpaquePointer?, _ id: UInt64, _ token: UnsafePointer<CChar>?) -> Int32 {
    answer(handle, id) { () throws(ODataStoreError) in .bearer(token: try CString.required(token, "token")) }
}

@c @implementation
public func ods_store_logon_headers(_ handle: OpaquePointer?, _ id: UInt64,
                                    _ headers: UnsafePointer<UnsafePointer<CChar>?>?) -> Int32 {
    answer(handle, id) { () throws(ODataStoreError) in
        guard headers != nil else { throw nullArgument("headers") }
        var lines: [(name: String, value: String)] = []
        for text in try CString.list(headers, "headers", limit: 100) {
            guard let colon = text.firstIndex(of: ":") else {
                throw ODataStoreError(.invalidArgument, "headers lines must look like \"Name: value\"")
            }
            lines.append((String(text[..<colon]), String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" })))
        }
        return .headers(lines)
    }
}

@c @implementation
public func ods_store_logon_refuse(_ handle: OpaquePointer?, _ id: UInt64) -> Int32 {
    answer(handle, id) { () throws(ODataStoreError) in .refuse }
}
