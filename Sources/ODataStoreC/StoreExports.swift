import CODataStoreABI
import Glibc
import ODataStore

/// Reads `ods_store_options` (checking its version) into `StoreOptions`.
private func readOptions(_ p: UnsafePointer<ods_store_options>) throws(ODataStoreError) -> StoreOptions {
    let o = try VersionedStructs.storeOptions(p)  // only the fields of the caller's version
    let version = o.version
    guard let kind = StoreKind(rawValue: o.kind) else {
        throw ODataStoreError(.invalidArgument, "options->kind \(o.kind) is not an ods_store_kind")
    }
    var root = try CString.read(o.service_root, "options->service_root")
    if root == nil, kind != .online, version >= 2, let path = try CString.read(o.store_path, "options->store_path") {
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
    case Int32(ODS_CSRF_AUTO.rawValue): options.csrfProtection = true
    case Int32(ODS_CSRF_OFF.rawValue): options.csrfProtection = false
    default: throw ODataStoreError(.invalidArgument, "options->csrf_protection must be ODS_CSRF_AUTO (0) or ODS_CSRF_OFF (1)")
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
                withDownloadProgressRecord(progress) { fn.function(Handle.pointer(store), $0, ctx.pointer) }
            }
        }
    }
    options.limits = try readLimits(o)
    try readLogonOptions(o, into: &options)  // version 3 (LogonExports.swift)
    return options
}

/// The limits block of `ods_store_options` (zero fields keep their defaults).
private func readLimits(_ o: ods_store_options) throws(ODataStoreError) -> StoreLimits {
    var limits = StoreLimits()
    func check(_ value: Int, _ name: String) throws(ODataStoreError) -> Int? {
        if value < 0 { throw ODataStoreError(.invalidArgument, "options->\(name) must not be negative") }
        return value > 0 ? value : nil
    }
    if let v = try check(Int(o.max_response_bytes), "max_response_bytes") { limits.maxResponseBytes = v }
    if let v = try check(Int(o.max_compression_ratio), "max_compression_ratio") { limits.maxCompressionRatio = v }
    if let v = try check(Int(o.max_error_message_bytes), "max_error_message_bytes") { limits.maxErrorMessageBytes = max(v, 64) }
    if let v = try check(Int(o.max_pages), "max_pages") { limits.maxPages = v }
    if let v = try check(Int(o.max_pending_requests), "max_pending_requests") { limits.maxPendingRequests = v }
    switch o.max_retries {
    case -1: limits.maxRetries = 0
    case 0: break
    case 1...10: limits.maxRetries = Int(o.max_retries)
    default: throw ODataStoreError(.invalidArgument, "options->max_retries must be -1 (never), 0 (default 2) or 1 to 10")
    }
    return limits
}

@c @implementation
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
        // The handle is live before the first state callback (OPENING may be delivered on
        // another thread before this call returns, and the app may use the store there).
        var handle: OpaquePointer?
        _ = try Store(options: swiftOptions, context: CStoreContext(pointer: context), stateHandler: handler) { store in
            let made = OpaquePointer(Unmanaged.passRetained(store).toOpaque())
            HandleRegistry.addStore(made)
            handle = made
        }
        out.pointee = handle
    }
}

@c @implementation
public func ods_store_close(_ handle: OpaquePointer?) -> Int32 {
    guard let handle else { return 0 }
    guard let store = Handle.store(handle) else {
        return LastError.set(ODataStoreError(.invalidArgument, "ods_store_close: not an open store (closed already?)"))
    }
    do {
        try store.close()
    } catch {
        return LastError.set(error)
    }
    // Only one close releases the handle, even if two threads raced to close it.
    guard HandleRegistry.removeStore(handle) else {
        return LastError.set(ODataStoreError(.invalidArgument, "ods_store_close: the store was closed twice"))
    }
    // Every callback has returned and the store's threads are joined: the context can go.
    (store.context as? CStoreContext)?.release()
    Unmanaged<Store>.fromOpaque(UnsafeRawPointer(handle)).release()
    return 0
}

@c @implementation
public func ods_store_set_release(_ handle: OpaquePointer?, _ release: ods_release_cb?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        guard let context = store.context as? CStoreContext else { throw ODataStoreError(.invalidState, "the store has no C context") }
        context.setRelease(release)
    }
}

@c @implementation
public func ods_store_set_thread_end(_ handle: OpaquePointer?, _ threadEnd: ods_thread_end_cb?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let handle, let store = Handle.store(handle) else { throw nullArgument("store") }
        guard let threadEnd else {
            store.setThreadEndHandler(nil)
            return
        }
        let fn = CFunction(function: threadEnd)
        // As numbers (pointers are not Sendable); the handle is valid until ods_store_close returns.
        let context = UInt(bitPattern: (store.context as? CStoreContext)?.pointer)
        let storeHandle = UInt(bitPattern: handle)
        store.setThreadEndHandler { fn.function(OpaquePointer(bitPattern: storeHandle), UnsafeMutableRawPointer(bitPattern: context)) }
    }
}

@c @implementation
public func ods_store_options_init(_ options: UnsafeMutablePointer<ods_store_options>?, _ version: UInt32) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let options else { throw nullArgument("options") }
        guard let bytes = VersionedStructs.storeOptionsBytes(version: version) else {
            throw ODataStoreError(.invalidArgument, "ods_store_options version \(version) is not one this library knows (1 to \(ODS_STORE_OPTIONS_VERSION))")
        }
        // Only the caller's version of the struct is written (it may be an older, shorter one).
        memset(UnsafeMutableRawPointer(options), 0, bytes)
        UnsafeMutableRawPointer(options).storeBytes(of: version, as: UInt32.self)
    }
}

@c @implementation
public func ods_request_delegate_init(_ delegate: UnsafeMutablePointer<ods_request_delegate>?, _ version: UInt32) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let delegate else { throw nullArgument("delegate") }
        guard version == UInt32(ODS_REQUEST_DELEGATE_VERSION) else {
            throw ODataStoreError(.invalidArgument, "ods_request_delegate version \(version) is not one this library knows (1 to \(ODS_REQUEST_DELEGATE_VERSION))")
        }
        memset(UnsafeMutableRawPointer(delegate), 0, MemoryLayout<ods_request_delegate>.size)
        delegate.pointee.version = version
    }
}

@c @implementation
public func ods_store_execute(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?, _ mode: Int32,
                              _ path: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?, _ timeoutMilliseconds: Int) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        guard let swiftMode = RequestMode(rawValue: mode) else {
            throw ODataStoreError(.invalidArgument, "mode \(mode) is not an ods_mode")
        }
        if store.isInCallback {
            throw ODataStoreError(.invalidState, "ods_store_execute called from a callback of the same store (it would wait for itself)")
        }
        let request = try store.makeRequest(swiftMode, path: try CString.required(path, "path"),
                                            body: try CString.read(body, "body_json"))
        request.attachC(context: nil, appOwned: false)
        try request.start()
        if !(try request.wait(timeoutMilliseconds: timeoutMilliseconds < 0 ? -1 : timeoutMilliseconds)) {
            try? request.cancel()
            _ = try request.wait(timeoutMilliseconds: -1)  // the cancellation ends it at once
            if case .failure? = request.outcome {
                throw ODataStoreError(.timeout, "\(request.path): no answer within \(timeoutMilliseconds) ms (the request was cancelled)")
            }
        }
        switch request.outcome {
        case .success(let response)?: out.pointee = ResponseView(response).retainedPointer
        case .failure(let failure)?: throw failure.error
        case nil: throw ODataStoreError(.error, "the request ended without an outcome")
        }
    }
}

@c @implementation
public func ods_store_key_path(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ handle: OpaquePointer?,
                               _ entitySet: UnsafePointer<CChar>?, _ keyJSON: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let set = try CString.required(entitySet, "entity_set")
        let text = try CString.required(keyJSON, "key_json")
        guard let model = store.model, let version = store.odataVersion else {
            throw ODataStoreError(.invalidState, "the store has no $metadata yet (state \(store.state))")
        }
        let key: JSONValue
        do {
            key = try JSONValue.parse(text)
        } catch {
            throw ODataStoreError(.invalidArgument, "key_json is not JSON: \(error)")
        }
        do {
            let path = try URLText.keyPath(entitySet: set, key: key, model: model, version: version)
            guard let copy = CString.duplicate(path) else { throw ODataStoreError(.noMemory, "out of memory") }
            out.pointee = copy
        } catch let error as URLText.KeyError {
            throw ODataStoreError(error.kind == .unknownSet ? .notFound : .invalidArgument, error.message)
        } catch let error as ODataStoreError {
            throw error
        } catch {
            throw ODataStoreError(.error, "\(error)")
        }
    }
}

@c @implementation
public func ods_store_get_state(_ handle: OpaquePointer?) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    return store.state.rawValue
}

@c @implementation
public func ods_store_context(_ handle: OpaquePointer?) -> UnsafeMutableRawPointer? {
    (Handle.store(handle)?.context as? CStoreContext)?.pointer
}

@c @implementation
public func ods_store_odata_version(_ handle: OpaquePointer?) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    return Int32(store.odataVersion?.rawValue ?? 0)
}

@c @implementation
public func ods_store_set_default_delegate(_ handle: OpaquePointer?,
                                           _ delegate: UnsafePointer<ods_request_delegate>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        store.defaultDelegate = try DelegateBridge.read(delegate)
    }
}

@c @implementation
public func ods_store_fd(_ handle: OpaquePointer?) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    guard let fd = store.eventFileDescriptor else {
        return LastError.set(ODataStoreError(.invalidState, "ods_store_fd is for stores opened with ODS_DISPATCH_QUEUE"))
    }
    return fd
}

@c @implementation
public func ods_store_dispatch(_ handle: OpaquePointer?, _ timeoutMilliseconds: Int32) -> Int32 {
    guard let store = Handle.store(handle) else { return LastError.set(nullArgument("store")) }
    do {
        return Int32(clamping: try store.dispatch(timeoutMilliseconds: Int(timeoutMilliseconds)))
    } catch {
        return LastError.set(error)
    }
}

@c @implementation
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
        request.attachC(context: context, appOwned: false)
        if let completion { try request.setCompletion(completionBridge(completion)) }
        try request.start()
        outID?.pointee = request.id
    }
}

@c @implementation
public func ods_store_cancel(_ handle: OpaquePointer?, _ requestID: UInt64) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try store.cancel(id: requestID)
    }
}
