import ArgumentParser
import ODataStore

/// `odatastore get PATH`: one READ, online or from an offline store.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Read an entity set, an entity, a property or a count.",
        discussion: """
            Prints the answer in the library's JSON shape (docs/json-shape.md) on stdout, or a \
            table with --output table. With --mode offline the answer comes from the store file \
            and no request goes to the service. With --mode mixed it comes from the store file when \
            the store's defining requests cover what the path reads, else from the service \
            (docs/mixed.md); stderr says which ("source: offline" or "source: online").

            Examples:
              odatastore get "Products?$filter=Price gt 10&$top=3" --service http://host/odata/
              odatastore get "Products(7)" --store products.store --mode offline
              odatastore get "Orders?$top=3" --service http://host/odata/ --store products.store --mode mixed
            """)

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case online, offline, mixed
    }

    enum Output: String, ExpressibleByArgument, CaseIterable {
        case json, table
    }

    @Argument(help: "The path relative to the service root, or a full URL under it.")
    var path: String

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "online (default): ask the service; offline: answer from --store; mixed: from --store when its defining requests cover the path, else from the service.")
    var mode: Mode = .online

    @Option(help: "json (default) or table.")
    var output: Output = .json

    @Flag(name: .customLong("all-pages"), help: "Follow next links and print every page as one collection.")
    var allPages = false

    func validate() throws {
        if mode != .online && connection.store == nil { throw ValidationError("--mode \(mode.rawValue) needs --store FILE") }
    }

    func run() async throws {
        let options = try connection.storeOptions(kind: mode.storeKind)
        let store = try await openStore(options)
        let outcome = await result { () async throws(ODataStoreError) in
            try await store.read(ResourcePath(path), paging: allPages ? .follow : .none)
        }
        await store.close()
        let response = try exitOnFailure(outcome)
        if mode == .mixed { reportSource(response) }
        switch output {
        case .json: print(response.json)
        case .table: print(Table.render(response.json))
        }
    }
}

extension GetCommand.Mode {
    var storeKind: StoreKind {
        switch self {
        case .online: .online
        case .offline: .offline
        case .mixed: .mixed
        }
    }
}

/// Mixed mode: which side answered, on stderr (stdout keeps only the answer).
func reportSource(_ response: Response) {
    writeError("source: \(response.source == .offline ? "offline" : "online")")
}
