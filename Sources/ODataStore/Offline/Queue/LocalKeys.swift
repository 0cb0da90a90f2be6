/// The local keys of an offline store (`ods_local_keys`): one row per entity created offline
/// whose key the service assigns, with the key the store made and, after upload, the service's.
/// Database thread only.
struct LocalKeys {
    let file: StoreFile

    /// Every mapping, by entity set, then in the order the entities were created.
    func all(version: ODataVersion?) throws(ODataStoreError) -> [KeyMapping] {
        let rows: [[SQLValue]]
        do throws(SQLiteError) {
            rows = try file.connection.rows("SELECT tbl, local_key, server_key FROM ods_local_keys ORDER BY tbl, rid")
        } catch {
            throw error.storeError("cannot read the local keys")
        }
        return rows.compactMap { row -> KeyMapping? in
            guard case .integer(let tableID) = row[0], let table = file.table(id: tableID),
                  case .text(let local) = row[1], let localPath = Self.path(local, table: table, version: version) else { return nil }
            var server: String?
            if case .text(let s) = row[2] { server = Self.path(s, table: table, version: version) }
            return KeyMapping(entitySet: table.entitySet, localPath: localPath, serverPath: server)
        }
    }

    /// `Set(key)` from a key kept as a JSON object of the key properties.
    private static func path(_ keyJSON: String, table: EntityTable, version: ODataVersion?) -> String? {
        guard case .object(let o)? = try? JSONValue.parse(keyJSON) else { return nil }
        var key: [SQLValue] = []
        for column in table.keyColumns {
            guard let v = try? LocalWrite.sqlKey(o[column.pathText], column) else { return nil }
            key.append(v)
        }
        return KeyPredicate.path(table, key, version: version)
    }
}
