import CODataStoreABI
import ODataStore

// ods_store_model_json: the store's $metadata as the JSON summary of `odatastore metadata`
// (ServiceModel.summary in ODataProtocol).

@c @implementation
public func ods_store_model_json(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        guard let copy = CString.duplicate(JSONValue.object(try loadedModel(of: store).summary).serialized()) else {
            throw ODataStoreError(.noMemory, "out of memory")
        }
        out.pointee = copy
    }
}

/// The store's model, or ODS_ESTATE while it has none (still opening, or the open failed):
/// what the exports that read $metadata need (ods_store_model_json, ods_store_check_url).
func loadedModel(of store: Store) throws(ODataStoreError) -> ServiceModel {
    guard let model = store.model else {
        throw ODataStoreError(.invalidState, "the store has no $metadata yet (state \(store.state))")
    }
    return model
}
