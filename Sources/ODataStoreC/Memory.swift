import CODataStoreABI
import ODataStore
import Glibc

@c @implementation
public func ods_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}
