import CODataStoreABI
import ODataStore

/// Runs `URLChecker` and hands the JSON out as an OWNED C string.
private func check(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, url: String, model: ServiceModel?,
                   version: ODataVersion?, serviceRoot: String?) throws(ODataStoreError) {
    switch URLChecker.check(url, model: model, version: version, serviceRoot: serviceRoot) {
    case .success(let json):
        guard let copy = CString.duplicate(json) else { throw ODataStoreError(.noMemory, "out of memory") }
        out.pointee = copy
    case .failure(let error):
        throw ODataStoreError(.syntax, "\(error.message) at position \(error.position)", position: error.position)
    }
}

@_cdecl("ods_url_check")
public func ods_url_check(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ url: UnsafePointer<CChar>?,
                          _ metadata: UnsafePointer<CChar>?, _ metadataLength: Int, _ odataVersion: Int32,
                          _ serviceRoot: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let urlString = try CString.required(url, "url")
        let version: ODataVersion?
        switch odataVersion {
        case 0: version = nil
        case 2: version = .v2
        case 4: version = .v4
        default: throw ODataStoreError(.invalidArgument, "odata_version must be 0, 2 or 4, not \(odataVersion)")
        }
        var model: ServiceModel?
        if let metadata {
            guard metadataLength > 0 else { throw ODataStoreError(.invalidArgument, "metadata_len is 0") }
            let bytes = UnsafeRawBufferPointer(start: metadata, count: metadataLength)
            do {
                model = try MetadataParser.parse(bytes)
            } catch {
                throw ODataStoreError(.invalidArgument, "the $metadata document cannot be read: \(error)")
            }
        }
        try check(out, url: urlString, model: model, version: version,
                  serviceRoot: try CString.read(serviceRoot, "service_root"))
    }
}

@_cdecl("ods_store_check_url")
public func ods_store_check_url(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ handle: OpaquePointer?,
                                _ url: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let urlString = try CString.required(url, "url")
        guard let model = store.model else {
            throw ODataStoreError(.invalidState, "the store has no $metadata yet (state \(store.state))")
        }
        try check(out, url: urlString, model: model, version: store.odataVersion, serviceRoot: store.options.serviceRoot)
    }
}
