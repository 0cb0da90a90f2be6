import CODataStoreABI
import ODataStore

// One-call forms for language bindings (include/odatastore.h, "One-call forms for language
// bindings"): each does what the functions it names do one after the other, with the same
// checks, errors and ownership, so a binding whose foreign calls and out-parameters are
// costly (Python's ctypes) makes one call where it made several.

/// ods_request_new + ods_request_set_completion + ods_request_start. The returned
/// reference is the app's (ods_request_free); on failure no request is left behind.
@c @implementation
public func ods_request_submit(_ handle: OpaquePointer?, _ mode: Int32, _ path: UnsafePointer<CChar>?,
                               _ body: UnsafePointer<CChar>?, _ completion: ods_completion_cb?,
                               _ context: UnsafeMutableRawPointer?) -> OpaquePointer? {
    var out: OpaquePointer?
    let rc = status { () throws(ODataStoreError) in
        let (request, pointer) = try makeAppRequest(handle, mode, path, body, context: context)
        do throws(ODataStoreError) {
            if let completion { try request.setCompletion(completionBridge(completion)) }
            try request.start()
        } catch {
            // not started: give back the app's reference, as ods_request_free would
            _ = HandleRegistry.releaseAppReference(pointer)
            Unmanaged<Request>.fromOpaque(UnsafeRawPointer(pointer)).release()
            throw error
        }
        out = pointer
    }
    return rc == 0 ? out : nil
}

/// ods_response_dup + ods_response_json: the new reference is the caller's.
@c @implementation
public func ods_response_retain_json(_ handle: OpaquePointer?, _ outLength: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle) else {
        outLength?.pointee = 0
        _ = LastError.set(nullArgument("response"))
        return nil
    }
    _ = view.retainedPointer
    outLength?.pointee = view.response.json.utf8.count
    return view.json
}
