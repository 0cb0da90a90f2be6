import CODataStoreABI
import Glibc
import ODataStore

@c @implementation
public func ods_response_status(_ handle: OpaquePointer?) -> Int32 {
    guard let view = ResponseView.from(handle) else { return LastError.set(nullArgument("response")) }
    return Int32(clamping: view.response.status)
}

@c @implementation
public func ods_response_json(_ handle: OpaquePointer?, _ outLength: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle) else { outLength?.pointee = 0; return nil }
    outLength?.pointee = view.response.json.utf8.count
    return view.json
}

@c @implementation
public func ods_response_body(_ handle: OpaquePointer?, _ outLength: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle) else { outLength?.pointee = 0; return nil }
    outLength?.pointee = view.response.body.count
    return view.body
}

@c @implementation
public func ods_response_header(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle), let name, let n = String(validatingCString: name) else { return nil }
    return view.header(named: n)
}

@c @implementation
public func ods_response_header_count(_ handle: OpaquePointer?) -> Int {
    ResponseView.from(handle)?.response.headerFields.count ?? 0
}

@c @implementation
public func ods_response_header_at(_ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                   _ outValue: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                   _ handle: OpaquePointer?, _ index: Int) -> Int32 {
    outName?.pointee = nil
    outValue?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let view = ResponseView.from(handle) else { throw nullArgument("response") }
        guard let header = view.header(at: index) else {
            throw ODataStoreError(.notFound, "header index \(UInt(bitPattern: index)) is out of range (\(view.response.headerFields.count) headers)")
        }
        outName?.pointee = header.name
        outValue?.pointee = header.value
    }
}

@c @implementation
public func ods_response_etag(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    ResponseView.from(handle)?.etag
}

@c @implementation
public func ods_response_next_link(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    ResponseView.from(handle)?.nextLink
}

@c @implementation
public func ods_response_count(_ handle: OpaquePointer?) -> Int64 {
    ResponseView.from(handle)?.response.count ?? -1
}

@c @implementation
public func ods_response_entity_count(_ handle: OpaquePointer?) -> Int {
    ResponseView.from(handle)?.entityCount ?? 0
}

@c @implementation
public func ods_response_entity(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    ResponseView.from(handle)?.entity(at: index)?.pointer
}

@c @implementation
public func ods_response_dup(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let view = ResponseView.from(handle) else { throw nullArgument("response") }
        out.pointee = view.retainedPointer
    }
}

@c @implementation
public func ods_response_free(_ handle: OpaquePointer?) {
    guard let handle else { return }
    Unmanaged<ResponseView>.fromOpaque(UnsafeRawPointer(handle)).release()
}
