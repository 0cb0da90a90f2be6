import Glibc
import CODataStoreABI
import ODataStore

/// Reads `ods_store_options` (checking its version) into `StoreOptions`.
private func readOptions(_ p: UnsafePointer<ods_store_options>) throws(ODataStoreError) -> StoreOptions {
    // Copy only the fields the caller's version of the struct has: a program built against
    // an older header passes a shorter struct (fields are only appended).
    let version = UnsafeRawPointer(p).load(as: UInt32.self)
    guard version >= 1 else {
        throw ODataStoreError(.invalidArgument, "ods_store_options.version is 0; initialise options with ODS_STORE_OPTIONS_INIT")
    }
    guard version <= UInt32(ODS_STORE_OPTIONS_VERSION) else {
        throw ODataStoreError(.invalidArgument, "ods_store_options.version \(version) is newer than this library (\(ODS_STORE_OPTIONS_VERSION))")
    }
    var o = ods_store_options()
    let size = version >= 2 ? MemoryLayout<ods_store_options>.size
                            : (MemoryLayout<ods_store_options>.offset(of: \ods_store_options.store_path) ?? 0)
    withUnsafeMutableBytes(of: &o) { dst in dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(p), count: size)) }
    guard let kind = StoreKind(rawValue: o.kind) else {
        throw ODataStoreError(.invalidArgument, "options->kind \(o.kind) is not an ods_store_kind")
    }
    var root = try CString.read(o.service_root, "options->service_root")
    if root == nil, kind == .offline, version >= 2, let path = try CString.read(o.store_path, "options->store_path") {
        // An existing offline store knows its service.
        root = try Store.serviceRoot(ofStoreAt: path)
    }
    guard let root else {
        throw ODataStoreError(.invalidArgument, "options->service_root must be set")
    }
    var options = StoreOptions(serviceRoot: root)
    options.kind = kind
    guard let dispatch = DispatchMode(rawValue: o.dispatch) else {
        throw ODataStoreError(.invalidArgument, "options->dispatch \(o.dispatch) is not an ods_dispatch_mode")
    }
    options.dispatch = dispatch
    switch o.odata_version {
    case 0: options.odataVersion = nil
    case 2: options.odataVersion = .v2
    case 4: options.odataVersion = .v4
    default: throw ODataStoreError(.invalidArgument, "options->odata_version must be 0, 2 or 4, not \(o.odata_version)")
    }
    switch o.auth {
    case 0:
        options.authentication = .none
    case 1:
        let user = try CString.read(o.username, "options->username") ?? ""
        let password = try CString.read(o.password, "options->password") ?? ""
        guard !user.isEmpty else { throw ODataStoreError(.invalidArgument, "ODS_AUTH_BASIC needs options->username") }
        options.authentication = .basic(username: user, password: password)
    case 2:
        guard let token = try CString.read(o.bearer_token, "options->bearer_token") else {
            throw ODataStoreError(.invalidArgument, "ODS_AUTH_BEARER needs options->bearer_token")
        }
        options.authentication = .bearer(token: token)
    default:
        throw ODataStoreError(.invalidArgument, "options->auth \(o.auth) is not an ods_auth_kind")
    }
    if var line = o.headers {
        var count = 0
        while let raw = line.pointee {
            count += 1
            guard count <= 1000 else { throw ODataStoreError(.invalidArgument, "options->headers has more than 1000 lines (missing NULL terminator?)") }
            guard let text = try CString.read(raw, "options->headers[i]"), let colon = text.firstIndex(of: ":") else {
                throw ODataStoreError(.invalidArgument, "options->headers lines must look like \"Name: value\"")
            }
            let name = String(text[..<colon])
            let value = String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            options.headers.append((name, value))
            line += 1
        }
    }
    options.caBundlePath = try CString.read(o.ca_bundle, "options->ca_bundle")
    options.insecureSkipTLSVerify = o.insecure_skip_tls_verify != 0
    if o.connect_timeout_ms < 0 || o.request_timeout_ms < 0 {
        throw ODataStoreError(.invalidArgument, "timeouts must not be negative")
    }
    if o.connect_timeout_ms > 0 { options.connectTimeoutMilliseconds = Int(o.connect_timeout_ms) }
    if o.request_timeout_ms > 0 { options.requestTimeoutMilliseconds = Int(o.request_timeout_ms) }
    if o.max_connections < 0 { throw ODataStoreError(.invalidArgument, "options->max_connections must not be negative") }
    if o.max_connections > 0 { options.maxConnections = Int(o.max_connections) }
    if let agent = try CString.read(o.user_agent, "options->user_agent") { options.userAgent = agent }
    switch o.csrf_protection {
    case 0: options.csrfProtection = true
    case 1: options.csrfProtection = false
    default: throw ODataStoreError(.invalidArgument, "options->csrf_protection must be 0 or 1")
    }
    options.metadataPath = try CString.read(o.metadata_path, "options->metadata_path")
    // Version 2: offline stores.
    options.storePath = try CString.read(o.store_path, "options->store_path")
    options.definingRequests = try CString.list(o.defining_requests, "options->defining_requests", limit: 10_000)
    switch o.download_page_size {
    case 0: options.downloadPageSize = 1000
    case -1: options.downloadPageSize = 0
    case let n where n > 0: options.downloadPageSize = Int(n)
    default: throw ODataStoreError(.invalidArgument, "options->download_page_size must be > 0, 0 (default) or -1 (the service's)")
    }
    if let callback = o.download_progress {
        let fn = CFunction(function: callback)
        let ctx = CContext(pointer: o.download_progress_context)
        options.downloadProgress = { store, progress in
            withExtendedLifetime(store) {
                progress.definingRequest.withCString { path in
                    var record = ods_download_progress(
                        version: UInt32(ODS_DOWNLOAD_PROGRESS_VERSION), defining_request: path,
                        request_index: progress.requestIndex, request_count: progress.requestCount,
                        entities: progress.entities, bytes: progress.bytes, expected_entities: progress.expectedEntities ?? -1,
                        total_entities: progress.totalEntities, total_bytes: progress.totalBytes,
                        request_finished: progress.requestFinished ? 1 : 0)
                    fn.function(Handle.pointer(store), &record, ctx.pointer)
                }
            }
        }
    }
    return options
}


@_cdecl("ods_store_open")
public func ods_store_open(_ out: UnsafeMutablePointer<OpaquePointer?>?,
                           _ options: UnsafePointer<ods_store_options>?,
                           _ stateCallback: ods_store_state_cb?,
                           _ context: UnsafeMutableRawPointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let options else { throw nullArgument("options") }
        let swiftOptions = try readOptions(options)
        var handler: Store.StateHandler?
        if let stateCallback {
            let fn = CFunction(function: stateCallback)
            let ctx = CContext(pointer: context)
            handler = { store, state, error in
                let record = error.map(ErrorRecord.init)
                withExtendedLifetime(record) {
                    fn.function(Handle.pointer(store), state.rawValue,
                                record.map { UnsafePointer($0.record) }, ctx.pointer)
                }
            }
        }
        let store = try Store(options: swiftOptions, context: CStoreContext(CContext(pointer: context)), stateHandler: handler)
        out.pointee = OpaquePointer(Unmanaged.passRetained(store).toOpaque())
    }
}

@_cdecl("ods_store_close")
public func ods_store_close(_ handle: OpaquePointer?) -> Int32 {
    guard let handle, let store = Handle.store(handle) else { return 0 }
    do {
        try store.close()
    } catch {
        return LastError.set(error)
    }
    Unmanaged<Store>.fromOpaque(UnsafeRawPointer(handle)).release()
    return 0
}

@_cdecl("ods_store_get_state")
public func ods_store_get_state(_ handle: OpaquePointer?) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    return store.state.rawValue
}

@_cdecl("ods_store_context")
public func ods_store_context(_ handle: OpaquePointer?) -> UnsafeMutableRawPointer? {
    (Handle.store(handle)?.context as? CStoreContext)?.context.pointer
}

@_cdecl("ods_store_odata_version")
public func ods_store_odata_version(_ handle: OpaquePointer?) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    return Int32(store.odataVersion?.rawValue ?? 0)
}

@_cdecl("ods_store_set_default_delegate")
public func ods_store_set_default_delegate(_ handle: OpaquePointer?,
                                           _ delegate: UnsafePointer<ods_request_delegate>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        store.defaultDelegate = try DelegateBridge.read(delegate)
    }
}

@_cdecl("ods_store_fd")
public func ods_store_fd(_ handle: OpaquePointer?) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    guard let fd = store.eventFileDescriptor else {
        return LastError.set(ODataStoreError(.invalidState, "ods_store_fd is for stores opened with ODS_DISPATCH_QUEUE"))
    }
    return fd
}

@_cdecl("ods_store_dispatch")
public func ods_store_dispatch(_ handle: OpaquePointer?, _ timeoutMilliseconds: Int32) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    do {
        return Int32(clamping: try store.dispatch(timeoutMilliseconds: Int(timeoutMilliseconds)))
    } catch {
        return LastError.set(error)
    }
}

@_cdecl("ods_store_schedule")
public func ods_store_schedule(_ outID: UnsafeMutablePointer<UInt64>?, _ handle: OpaquePointer?,
                               _ mode: Int32, _ path: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?,
                               _ completion: ods_completion_cb?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    outID?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        guard let swiftMode = RequestMode(rawValue: mode) else {
            throw ODataStoreError(.invalidArgument, "mode \(mode) is not an ods_mode")
        }
        let pathString = try CString.required(path, "path")
        let bodyString = try CString.read(body, "body_json")
        let request = try store.makeRequest(swiftMode, path: pathString, body: bodyString)
        request.attachC(context: context)
        if let completion { try request.setCompletion(completionBridge(completion)) }
        try request.start()
        outID?.pointee = request.id
    }
}

@_cdecl("ods_store_cancel")
public func ods_store_cancel(_ handle: OpaquePointer?, _ requestID: UInt64) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try store.cancel(id: requestID)
    }
}
