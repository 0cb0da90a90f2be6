import ODataStore

/// `-v` / `-vv`: the library's log (docs/logging.md) on stderr, one line per message:
/// `odatastore: info http: GET https://... -> 200 in 12.3 ms, 512 bytes`.
enum VerboseLog {
    static func start(_ count: Int) {
        guard count > 0 else { return }
        ODataStoreLog.setHandler(level: count >= 2 ? .debug : .info) { record in
            // One write(2) per line (writeError): lines from several threads do not mix.
            writeError("odatastore: \(record.level.name) \(record.category.rawValue): \(record.message)")
        }
    }
}
