import CODataStoreABI
import Glibc
import ODataStore

/// Versioned C structs are read only as far as the caller's version reaches: a program built
/// against an older header passes a shorter struct, and reading the newer fields would read
/// past its end. The rest of the local copy stays zero (every field's default).
enum VersionedStructs {
    /// Bytes of `ods_store_options` that a caller of `version` filled in, nil for an unknown version.
    /// Each version's struct ends where the next version's first field begins.
    static func storeOptionsBytes(version: UInt32) -> Int? {
        switch version {
        case 1: MemoryLayout<ods_store_options>.offset(of: \.store_path)
        case 2: MemoryLayout<ods_store_options>.offset(of: \.logon)
        case 3: MemoryLayout<ods_store_options>.size
        default: nil
        }
    }

    /// A zero-filled `ods_store_options` with the caller's fields copied in (version checked).
    static func storeOptions(_ p: UnsafePointer<ods_store_options>) throws(ODataStoreError) -> ods_store_options {
        let version = UnsafeRawPointer(p).load(as: UInt32.self)
        guard version >= 1 else {
            throw ODataStoreError(.invalidArgument, "ods_store_options.version is 0; initialise options with ODS_STORE_OPTIONS_INIT or ods_store_options_init")
        }
        guard let bytes = storeOptionsBytes(version: version) else {
            throw ODataStoreError(.invalidArgument, "ods_store_options.version \(version) is newer than this library (\(ODS_STORE_OPTIONS_VERSION))")
        }
        var o = ods_store_options()
        withUnsafeMutableBytes(of: &o) { dst in
            if let base = dst.baseAddress { memcpy(base, UnsafeRawPointer(p), bytes) }
        }
        return o
    }
}
