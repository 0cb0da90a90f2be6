import CODataStoreABI
import Glibc
import ODataStore

@_cdecl("ods_response_status")
public func ods_response_status(_ handle: OpaquePointer?) -> Int32 {
    guard let view = ResponseView.from(handle) else { return LastError.set(nullArgument("response")) }
    return Int32(clamping: view.response.status)
}

@_cdecl("ods_response_json")
public func ods_response_json(_ handle: OpaquePointer?, _ outLength: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle) else { outLength?.pointee = 0; return nil }
    outLength?.pointee = view.response.json.utf8.count
    return view.json
}

@_cdecl("ods_response_body")
public func ods_response_body(_ handle: OpaquePointer?, _ outLength: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle) else { outLength?.pointee = 0; return nil }
    outLength?.pointee = view.response.body.count
    return view.body
}

@_cdecl("ods_response_header")
public func ods_response_header(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let view = ResponseView.from(handle), let name, let n = String(validatingCString: name) else { return nil }
    return view.header(named: n)
}

@_cdecl("ods_response_header_count")
public func ods_response_header_count(_ handle: OpaquePointer?) -> Int {
    ResponseView.from(handle)?.response.headerFields.count ?? 0
}

@_cdecl("ods_response_header_at")
public func ods_response_header_at(_ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                   _ outValue: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                   _ handle: OpaquePointer?, _ index: Int) -> Int32 {
    outName?.pointee = nil
    outValue?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let view = ResponseView.from(handle) else { throw nullArgument("response") }
        guard let header = view.header(at: index) else {
            throw ODataStoreError(.notFound, "header index \(index) is out of range (\(view.response.headerFields.count) headers)")
        }
        outName?.pointee = header.name
        outValue?.pointee = header.value
    }
}

@_cdecl("ods_response_etag")
public func ods_response_etag(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    ResponseView.from(handle)?.etag
}

@_cdecl("ods_response_next_link")
public func ods_response_next_link(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    ResponseView.from(handle)?.nextLink
}

@_cdecl("ods_response_count")
public func ods_response_count(_ handle: OpaquePointer?) -> Int64 {
    ResponseView.from(handle)?.response.count ?? -1
}

@_cdecl("ods_response_entity_count")
public func ods_response_entity_count(_ handle: OpaquePointer?) -> Int {
    ResponseView.from(handle)?.entityCount ?? 0
}

@_cdecl("ods_response_entity")
public func ods_response_entity(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    ResponseView.from(handle)?.entity(at: index)?.pointer
}

@_cdecl("ods_response_dup")
public func ods_response_dup(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let view = ResponseView.from(handle) else { throw nullArgument("response") }
        out.pointee = view.retainedPointer
    }
}

@_cdecl("ods_response_free")
public func ods_response_free(_ handle: OpaquePointer?) {
    guard let handle else { return }
    Unmanaged<ResponseView>.fromOpaque(UnsafeRawPointer(handle)).release()
}
