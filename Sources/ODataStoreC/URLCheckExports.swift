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
        // Positions cross the C boundary as byte offsets into the caller's string (the parser
        // reports characters, which a C program cannot index with).
        let byte = byteOffset(ofCharacter: error.position, in: url)
        throw ODataStoreError(.syntax, "\(URLRedaction.redactingPassword(error.message)) at byte \(byte)", position: byte)
    }
}

/// The UTF-8 offset of character `n` of `text` (its length when `n` is past the end).
func byteOffset(ofCharacter n: Int, in text: String) -> Int {
    var bytes = 0
    for (i, ch) in text.enumerated() {
        if i >= n { return bytes }
        bytes += ch.utf8.count
    }
    return bytes + max(0, n - text.count)
}

@c @implementation
public func ods_url_quote_string(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                 _ value: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        let text = try CString.required(value, "value")
        guard let copy = CString.duplicate(URLText.quotedString(text)) else { throw ODataStoreError(.noMemory, "out of memory") }
        out.pointee = copy
    }
}

@c @implementation
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

@c @implementation
public func ods_store_check_url(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ handle: OpaquePointer?,
                                _ url: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let urlString = try CString.required(url, "url")
        try check(out, url: urlString, model: try loadedModel(of: store), version: store.odataVersion, serviceRoot: store.options.serviceRoot)
    }
}
