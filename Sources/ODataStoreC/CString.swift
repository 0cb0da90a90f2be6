import ODataStore
import Glibc

/// Conversions between C strings and Swift strings at the ABI boundary.
enum CString {
    /// A copy of a NUL-terminated UTF-8 string; nil when the pointer is NULL.
    /// Throws ODS_EINVAL for invalid UTF-8, naming the argument.
    static func read(_ pointer: UnsafePointer<CChar>?, _ argument: StaticString) throws(ODataStoreError) -> String? {
        guard let pointer else { return nil }
        guard let s = String(validatingCString: pointer) else {
            throw ODataStoreError(.invalidArgument, "\(argument) is not valid UTF-8")
        }
        return s
    }

    /// Like `read`, but NULL is an error too.
    static func required(_ pointer: UnsafePointer<CChar>?, _ argument: StaticString) throws(ODataStoreError) -> String {
        guard let s = try read(pointer, argument) else {
            throw ODataStoreError(.invalidArgument, "\(argument) must not be NULL")
        }
        return s
    }

    /// The strings of a NULL-terminated array (empty for a NULL array). Throws when a string
    /// is not UTF-8 or the array has more than `limit` entries (a missing terminator).
    static func list(_ array: UnsafePointer<UnsafePointer<CChar>?>?, _ argument: StaticString,
                     limit: Int) throws(ODataStoreError) -> [String] {
        guard var p = array else { return [] }
        var out: [String] = []
        while let raw = p.pointee {
            guard out.count < limit else {
                throw ODataStoreError(.invalidArgument, "\(argument) has more than \(limit) entries (missing NULL terminator?)")
            }
            guard let s = String(validatingCString: raw) else {
                throw ODataStoreError(.invalidArgument, "\(argument)[\(out.count)] is not valid UTF-8")
            }
            out.append(s)
            p += 1
        }
        return out
    }

    /// A malloc'd NUL-terminated copy, released with free (ods_free).
    static func duplicate(_ s: String) -> UnsafeMutablePointer<CChar>? {
        var utf8 = Array(s.utf8)
        utf8.append(0)
        guard let p = malloc(utf8.count)?.assumingMemoryBound(to: CChar.self) else { return nil }
        utf8.withUnsafeBytes { raw in
            if let base = raw.baseAddress { memcpy(p, base, raw.count) }
        }
        return p
    }

    /// A malloc'd copy of raw bytes plus a terminating NUL.
    static func duplicate(bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        guard let p = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { memcpy(p, base, raw.count) }
        }
        p[bytes.count] = 0
        return p
    }
}

/// Owns C strings handed out as BORROWED: each is freed when the owner is released.
final class BorrowedStrings {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    /// A NUL-terminated copy that lives as long as this object.
    func keep(_ s: String) -> UnsafePointer<CChar>? {
        guard let p = CString.duplicate(s) else { return nil }
        pointers.append(p)
        return UnsafePointer(p)
    }

    func keep(bytes: [UInt8]) -> UnsafePointer<CChar>? {
        guard let p = CString.duplicate(bytes: bytes) else { return nil }
        pointers.append(p)
        return UnsafePointer(p)
    }

    deinit { for p in pointers { free(p) } }
}
