import CODataStoreABI
import ODataStore

/// `ods_log_set`: the C callback and its context behind the Swift `ODataStoreLog` handler.
/// The message and category strings live for the call only (borrowed, as the header says).
@c @implementation
public func ods_log_set(_ level: Int32, _ callback: ods_log_cb?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard level == 0 || LogLevel(rawValue: level) != nil else {
            throw ODataStoreError(.invalidArgument, "level must be an ods_log_level (ODS_LOG_OFF to ODS_LOG_DEBUG), not \(level)")
        }
        guard let callback, let level = LogLevel(rawValue: level) else {
            ODataStoreLog.setHandler(level: .error, nil)
            return
        }
        let fn = CFunction(function: callback)
        let ctx = CContext(pointer: context)
        ODataStoreLog.setHandler(level: level) { record in
            record.category.rawValue.withCString { category in
                record.message.withCString { message in
                    fn.function(record.level.rawValue, category, message, ctx.pointer)
                }
            }
        }
    }
}

@c @implementation
public func ods_log_get_level() -> Int32 {
    ODataStoreLog.level?.rawValue ?? 0
}
