import CODataStoreABI
import ODataStore

@c @implementation
public func ods_request_new(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?,
                            _ mode: Int32, _ path: UnsafePointer<CChar>?,
                            _ body: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        out.pointee = try makeAppRequest(handle, mode, path, body, context: nil).pointer
    }
}

/// What ods_request_new and ods_request_submit share: checks the arguments, makes an unstarted
/// request and hands the app its reference (`pointer`, released with ods_request_free).
/// Calling thread; throws without leaving a request behind.
func makeAppRequest(_ handle: OpaquePointer?, _ mode: Int32, _ path: UnsafePointer<CChar>?,
                    _ body: UnsafePointer<CChar>?, context: UnsafeMutableRawPointer?)
    throws(ODataStoreError) -> (request: Request, pointer: OpaquePointer) {
    guard let store = Handle.store(handle) else { throw nullArgument("store") }
    guard let swiftMode = RequestMode(rawValue: mode) else {
        throw ODataStoreError(.invalidArgument, "mode \(mode) is not an ods_mode")
    }
    let request = try store.makeRequest(swiftMode, path: try CString.required(path, "path"),
                                        body: try CString.read(body, "body_json"))
    request.attachC(context: context, appOwned: true)
    return (request, OpaquePointer(Unmanaged.passRetained(request).toOpaque()))
}

@c @implementation
public func ods_request_free(_ handle: OpaquePointer?) {
    guard let handle else { return }
    // Only the reference ods_request_new gave, once: a second free (or a request the library
    // owns, from ods_store_schedule) is reported, never an over-release.
    guard HandleRegistry.releaseAppReference(handle) else {
        LastError.set(ODataStoreError(.invalidArgument, "ods_request_free: not a request the app holds (freed already?)"))
        return
    }
    Unmanaged<Request>.fromOpaque(UnsafeRawPointer(handle)).release()
}

@c @implementation
public func ods_request_set_delegate(_ handle: OpaquePointer?, _ delegate: UnsafePointer<ods_request_delegate>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.setDelegate(try DelegateBridge.read(delegate))
    }
}

@c @implementation
public func ods_request_set_completion(_ handle: OpaquePointer?, _ completion: ods_completion_cb?,
                                       _ context: UnsafeMutableRawPointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.setCompletion(completion.map(completionBridge))
        // The context goes with the callback (it is the request's context, as set_context sets it).
        var c = request.cContext
        c.context = CContext(pointer: context)
        request.cContext = c
    }
}

@c @implementation
public func ods_request_set_context(_ handle: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        guard request.state == .new else {
            throw ODataStoreError(.invalidState, "a request can only be configured before it is started")
        }
        var c = request.cContext
        c.context = CContext(pointer: context)
        request.cContext = c
    }
}

@c @implementation
public func ods_request_context(_ handle: OpaquePointer?) -> UnsafeMutableRawPointer? {
    Handle.request(handle)?.cContext.context.pointer
}

@c @implementation
public func ods_request_set_header(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                   _ value: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.setHeader(try CString.required(name, "name"), try CString.read(value, "value"))
    }
}

@c @implementation
public func ods_request_set_etag(_ handle: OpaquePointer?, _ etag: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.setETag(try CString.read(etag, "etag"))
    }
}

@c @implementation
public func ods_request_set_paging(_ handle: OpaquePointer?, _ paging: Int32) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        guard let p = Paging(rawValue: paging) else {
            throw ODataStoreError(.invalidArgument, "paging \(paging) is not an ods_paging")
        }
        try request.setPaging(p)
    }
}

@c @implementation
public func ods_request_set_timeout(_ handle: OpaquePointer?, _ timeoutMilliseconds: Int) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.setTimeout(milliseconds: timeoutMilliseconds)
    }
}

@c @implementation
public func ods_request_start(_ handle: OpaquePointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.start()
    }
}

@c @implementation
public func ods_request_cancel(_ handle: OpaquePointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        try request.cancel()
    }
}

@c @implementation
public func ods_request_id(_ handle: OpaquePointer?) -> UInt64 {
    Handle.request(handle)?.id ?? 0
}

@c @implementation
public func ods_request_get_state(_ handle: OpaquePointer?) -> Int32 {
    guard let request = Handle.request(handle) else { return LastError.set(nullArgument("request")) }
    return request.state.rawValue
}

@c @implementation
public func ods_request_mode(_ handle: OpaquePointer?) -> Int32 {
    guard let request = Handle.request(handle) else { return LastError.set(nullArgument("request")) }
    return request.mode.rawValue
}

@c @implementation
public func ods_request_path(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let request = Handle.request(handle) else { return nil }
    return request.cPath
}

@c @implementation
public func ods_request_store(_ handle: OpaquePointer?) -> OpaquePointer? {
    // After ods_store_close the store handle is no longer the app's to use: NULL, not a
    // pointer that looks valid.
    guard let request = Handle.request(handle), request.store.state != .closed else { return nil }
    return Handle.pointer(request.store)
}

@c @implementation
public func ods_request_wait(_ handle: OpaquePointer?, _ timeoutMilliseconds: Int) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        guard try request.wait(timeoutMilliseconds: timeoutMilliseconds < 0 ? -1 : timeoutMilliseconds) else {
            throw ODataStoreError(.timeout, "request \(request.id) has not ended after \(timeoutMilliseconds) ms")
        }
    }
}

@c @implementation
public func ods_request_response(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        guard let outcome = request.outcome else {
            throw ODataStoreError(.invalidState, "request \(request.id) has not ended (wait for it first)")
        }
        let response: Response
        switch outcome {
        case .success(let r): response = r
        case .failure(let f):
            guard let r = f.response else {
                throw ODataStoreError(.notFound, "request \(request.id) failed without a response from the service")
            }
            response = r
        }
        out.pointee = ResponseView(response).retainedPointer
    }
}

@c @implementation
public func ods_request_error(_ handle: OpaquePointer?) -> UnsafePointer<ods_error>? {
    guard let request = Handle.request(handle), case .failure(let f)? = request.outcome else { return nil }
    return UnsafePointer(request.cContext.extras.errorRecord { ErrorRecord(f.error) }.record)
}
