import CODataStoreABI
import Glibc
import ODataStore

// ods_entity_*: an entity is an object value of a response (see ValueView). Every typed
// getter follows one rule: *out is cleared first; ODS_ENOTFOUND when the property is absent,
// ODS_ENULL when it is JSON null, ODS_ETYPE when it cannot be read as that type, ODS_EINVAL
// for NULL arguments.

@c @implementation
public func ods_entity_json(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    ValueView.from(handle)?.json
}

@c @implementation
public func ods_entity_etag(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let etag = ValueView.from(handle)?.memberRef("@odata.etag"), etag.kind == .string else { return nil }
    return etag.text
}

@c @implementation
public func ods_entity_value_type(_ handle: OpaquePointer?, _ property: UnsafePointer<CChar>?) -> Int32 {
    guard let entity = ValueView.from(handle), let property, let name = String(validatingCString: property),
          let value = entity.memberRef(name) else { return 0 }
    return value.typeCode
}

/// The property's value for the typed getters: ODS_EINVAL for NULL arguments, ODS_ENOTFOUND
/// when the property is absent.
func property(_ handle: OpaquePointer?, _ property: UnsafePointer<CChar>?) throws(ODataStoreError) -> (ValueRef, String) {
    guard let entity = ValueView.from(handle) else { throw nullArgument("entity") }
    let name = try CString.required(property, "property")
    guard let value = entity.memberRef(name) else {
        throw ODataStoreError(.notFound, "the entity has no property \"\(name)\"")
    }
    return (value, "property \"\(name)\"")
}

@c @implementation
public func ods_entity_get_value(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?,
                                 _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (value, _) = try property(handle, name)
        out.pointee = value.owner.withCache { c in value.owner.view(&c, value.range) }.pointer
    }
}

@c @implementation
public func ods_entity_get_string(_ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ handle: OpaquePointer?,
                                  _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (value, what) = try property(handle, name)
        out.pointee = try value.string(what)
    }
}

@c @implementation
public func ods_entity_get_int64(_ out: UnsafeMutablePointer<Int64>?, _ handle: OpaquePointer?,
                                 _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (value, what) = try property(handle, name)
        out.pointee = try value.int64(what)
    }
}

@c @implementation
public func ods_entity_get_double(_ out: UnsafeMutablePointer<Double>?, _ handle: OpaquePointer?,
                                  _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (value, what) = try property(handle, name)
        out.pointee = try value.double(what)
    }
}

@c @implementation
public func ods_entity_get_bool(_ out: UnsafeMutablePointer<Int32>?, _ handle: OpaquePointer?,
                                _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (value, what) = try property(handle, name)
        out.pointee = try value.bool(what) ? 1 : 0
    }
}

@c @implementation
public func ods_entity_value(_ handle: OpaquePointer?) -> OpaquePointer? {
    ValueView.from(handle)?.pointer
}
