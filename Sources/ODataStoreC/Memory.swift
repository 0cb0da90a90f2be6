import ODataStore
import Glibc

@_cdecl("ods_free")
public func ods_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}
