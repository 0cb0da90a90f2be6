import CODataStoreABI
import ODataStore

// Mixed stores (include/odatastore.h, "MIXED STORES"; docs/mixed.md).

@c @implementation
public func ods_store_set_mode(_ handle: OpaquePointer?, _ mode: Int32) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        guard let working = WorkingMode(rawValue: mode) else {
            throw ODataStoreError(.invalidArgument, "mode \(mode) is not an ods_store_mode")
        }
        try store.setWorkingMode(working)
    }
}

@c @implementation
public func ods_store_get_mode(_ out: UnsafeMutablePointer<Int32>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        out.pointee = store.workingMode.rawValue
    }
}

@c @implementation
public func ods_request_set_route(_ handle: OpaquePointer?, _ route: Int32) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let request = Handle.request(handle) else { throw nullArgument("request") }
        guard let side = RequestRoute(rawValue: route) else {
            throw ODataStoreError(.invalidArgument, "route \(route) is not an ods_route")
        }
        try request.setRoute(side)
    }
}

@c @implementation
public func ods_response_source(_ handle: OpaquePointer?) -> Int32 {
    guard let view = ResponseView.from(handle) else { return LastError.set(nullArgument("response")) }
    return view.response.source.rawValue
}
