import CODataStoreABI
import Glibc
import ODataStore

// ods_value_*: any JSON value inside a response (BORROWED from it). The typed getters follow
// the rule of the entity getters (EntityExports.swift), without ODS_ENOTFOUND.

@c @implementation
public func ods_response_value(_ handle: OpaquePointer?) -> OpaquePointer? {
    ResponseView.from(handle)?.rootValue?.pointer
}

@c @implementation
public func ods_value_get_type(_ handle: OpaquePointer?) -> Int32 {
    ValueView.from(handle)?.typeCode ?? 0
}

@c @implementation
public func ods_value_json(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    ValueView.from(handle)?.json
}

@c @implementation
public func ods_value_count(_ handle: OpaquePointer?) -> Int {
    ValueView.from(handle)?.count ?? 0
}

@c @implementation
public func ods_value_at(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    ValueView.from(handle)?.element(index)?.pointer
}

@c @implementation
public func ods_value_member(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let view = ValueView.from(handle), let name, let n = String(validatingCString: name) else { return nil }
    return view.member(n)?.pointer
}

@c @implementation
public func ods_value_member_at(_ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                _ outValue: UnsafeMutablePointer<OpaquePointer?>?,
                                _ handle: OpaquePointer?, _ index: Int) -> Int32 {
    outName?.pointee = nil
    outValue?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let view = ValueView.from(handle) else { throw nullArgument("object") }
        guard view.kind == .object else { throw ODataStoreError(.type, "the value is not an object") }
        guard let (name, value) = view.member(at: index) else {
            throw ODataStoreError(.notFound, "member index \(UInt(bitPattern: index)) is out of range (\(view.count) members)")
        }
        outName?.pointee = name
        outValue?.pointee = value.pointer
    }
}

@c @implementation
public func ods_value_entity(_ handle: OpaquePointer?) -> OpaquePointer? {
    guard let view = ValueView.from(handle), view.kind == .object else { return nil }
    return view.pointer
}

private func value(_ handle: OpaquePointer?) throws(ODataStoreError) -> ValueView {
    guard let view = ValueView.from(handle) else { throw nullArgument("value") }
    return view
}

@c @implementation
public func ods_value_get_string(_ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        out.pointee = try value(handle).string("the value")
    }
}

@c @implementation
public func ods_value_get_int64(_ out: UnsafeMutablePointer<Int64>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        out.pointee = try value(handle).int64("the value")
    }
}

@c @implementation
public func ods_value_get_double(_ out: UnsafeMutablePointer<Double>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        out.pointee = try value(handle).double("the value")
    }
}

@c @implementation
public func ods_value_get_bool(_ out: UnsafeMutablePointer<Int32>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        out.pointee = try value(handle).bool("the value") ? 1 : 0
    }
}
