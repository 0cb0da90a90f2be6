import ODataStore

/// `odatastore metadata`: what a service's $metadata declares, summarised.
struct MetadataCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "metadata",
        abstract: "Summarise a service's $metadata: entity sets, keys, properties, navigation, operations.",
        discussion: """
            Reads $metadata from the service (--service), from an offline store file without the \
            network (--store), or from a file (--metadata). Prints JSON: the protocol version, the \
            entity sets and singletons with their entity type, key, properties (name and type) \
            and navigation properties (name, target type, to-many or not), then the operation \
            imports (kind, HTTP method, parameters, return type). --output table prints two tables.

            Examples:
              odatastore metadata --service http://host/odata/
              odatastore metadata --metadata metadata.xml --output table
              odatastore metadata --store products.store
            """,
        arguments: [.option("metadata", help: "Read this $metadata document instead of asking a service.")]
            + ConnectionOptions.arguments + [GetCommand.Output.argument])

    var metadata: String?
    var connection: ConnectionOptions
    var output: GetCommand.Output

    init(_ a: ParsedArguments) {
        metadata = a.string("metadata")
        connection = ConnectionOptions(a)
        output = a.choice("output", default: .json)
    }

    func validate() throws {
        if metadata == nil && connection.service == nil && connection.store == nil {
            throw ValidationError("give --service URL, --store FILE or --metadata FILE")
        }
    }

    func run() async throws {
        let model: ServiceModel
        if let path = metadata {
            let bytes: [UInt8]
            switch readFile(path) {
            case .success(let b): bytes = b
            case .failure(let f):
                writeError("error: \(f.message)")
                throw ExitCode(66)
            }
            do {
                model = try MetadataParser.parse(bytes)
            } catch {
                writeError("error: \(path): \(error.description)")
                throw ExitCode(2)
            }
        } else {
            let kind: StoreKind = connection.store != nil && connection.service == nil ? .offline : .online
            let store = try await openStore(try connection.storeOptions(kind: kind))
            let loaded = store.model
            await store.close()
            guard let loaded else {
                writeError("error: the store has no $metadata")
                throw ExitCode(1)
            }
            model = loaded
        }
        let summary = model.summary
        switch output {
        case .json:
            print(JSONValue.object(summary).serialized())
        case .table:
            for (title, key) in [("Entity sets", "entitySets"), ("Operation imports", "operations")] {
                print("\(title):")
                var rows = JSONObject()
                rows["value"] = .array((summary[key]?.arrayValue ?? []).map(Self.flat))
                print(Table.render(JSONValue.object(rows).serialized()))
                print("")
            }
        }
    }

    /// One table row: lists become short text (names only for properties and parameters).
    static func flat(_ value: JSONValue) -> JSONValue {
        guard case .object(let o) = value else { return value }
        var row = JSONObject()
        for m in o {
            switch m.value {
            case .array(let items):
                let parts = items.map { item -> String in
                    if case .string(let s) = item { return s }
                    if case .string(let n)? = item["name"] {
                        if case .string(let t)? = item["target"] { return "\(n)->\(t.split(separator: ".").last ?? "")" }
                        return n
                    }
                    return item.serialized()
                }
                row[m.key] = .string(m.key == "properties" ? "\(parts.count)" : parts.joined(separator: ","))
            default:
                row[m.key] = m.value
            }
        }
        return .object(row)
    }
}
