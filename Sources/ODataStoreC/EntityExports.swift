import CODataStoreABI
import Glibc
import ODataStore

@_cdecl("ods_entity_json")
public func ods_entity_json(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    EntityView.from(handle)?.json
}

@_cdecl("ods_entity_etag")
public func ods_entity_etag(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let entity = EntityView.from(handle), entity.property("@odata.etag")?.kind == .string else { return nil }
    return entity.text("@odata.etag") ?? nil
}

@_cdecl("ods_entity_value_type")
public func ods_entity_value_type(_ handle: OpaquePointer?, _ property: UnsafePointer<CChar>?) -> Int32 {
    guard let entity = EntityView.from(handle), let property, let name = String(validatingCString: property),
          let value = entity.property(name) else { return 0 }
    switch value.kind {
    case .null: return 1
    case .bool: return 2
    case .number: return 3
    case .string: return 4
    case .object: return 5
    case .array: return 6
    }
}

/// Looks up a property for the typed getters: ODS_EINVAL for NULL arguments, ODS_ENOTFOUND
/// when the property is absent.
private func lookup(_ handle: OpaquePointer?, _ property: UnsafePointer<CChar>?) throws(ODataStoreError) -> (EntityView, String, EntityView.Property) {
    guard let entity = EntityView.from(handle) else { throw nullArgument("entity") }
    let name = try CString.required(property, "property")
    guard let value = entity.property(name) else {
        throw ODataStoreError(.notFound, "the entity has no property \"\(name)\"")
    }
    return (entity, name, value)
}

/// A numeric property's text: a JSON number as spelled, or a string (Int64, Decimal, "INF").
private func numberText(_ handle: OpaquePointer?, _ property: UnsafePointer<CChar>?) throws(ODataStoreError) -> (String, String) {
    let (entity, name, value) = try lookup(handle, property)
    switch value.kind {
    case .number, .string:
        guard let text = entity.scalarText(value) else {
            throw ODataStoreError(.invalidArgument, "property \"\(name)\" is not a number")
        }
        return (name, text)
    case .null: throw ODataStoreError(.notFound, "property \"\(name)\" is null")
    default: throw ODataStoreError(.invalidArgument, "property \"\(name)\" is not a number")
    }
}

@_cdecl("ods_entity_get_string")
public func ods_entity_get_string(_ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ handle: OpaquePointer?,
                                  _ property: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (entity, name, _) = try lookup(handle, property)
        out.pointee = entity.text(name) ?? nil
    }
}

@_cdecl("ods_entity_get_int64")
public func ods_entity_get_int64(_ out: UnsafeMutablePointer<Int64>?, _ handle: OpaquePointer?,
                                 _ property: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (name, text) = try numberText(handle, property)
        guard let v = Int64(text) else {
            throw ODataStoreError(.invalidArgument, "property \"\(name)\" (\(text)) is not an integer in the Int64 range")
        }
        out.pointee = v
    }
}

@_cdecl("ods_entity_get_double")
public func ods_entity_get_double(_ out: UnsafeMutablePointer<Double>?, _ handle: OpaquePointer?,
                                  _ property: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (name, text) = try numberText(handle, property)
        switch text {
        case "INF": out.pointee = .infinity
        case "-INF": out.pointee = -.infinity
        case "NaN": out.pointee = .nan
        default:
            guard let v = Double(text) else {
                throw ODataStoreError(.invalidArgument, "property \"\(name)\" (\(text)) is not a number")
            }
            out.pointee = v
        }
    }
}

@_cdecl("ods_entity_get_bool")
public func ods_entity_get_bool(_ out: UnsafeMutablePointer<Int32>?, _ handle: OpaquePointer?,
                                _ property: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let (entity, name, value) = try lookup(handle, property)
        switch value.kind {
        case .bool: out.pointee = entity.bool(value) ? 1 : 0
        case .null: throw ODataStoreError(.notFound, "property \"\(name)\" is null")
        default: throw ODataStoreError(.invalidArgument, "property \"\(name)\" is not a boolean")
        }
    }
}
