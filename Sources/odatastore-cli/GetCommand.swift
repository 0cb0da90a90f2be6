#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataStore

/// `odatastore get PATH`: one READ, online or from an offline store.
struct GetCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "get",
        abstract: "Read an entity set, an entity, a property or a count.",
        discussion: """
            Prints the answer in the library's JSON shape (docs/json-shape.md) on stdout, or a \
            table with --output table; an answer that is not JSON ("$metadata", a media $value) \
            as received. With --mode offline the answer comes from the store file \
            and no request goes to the service. With --mode mixed it comes from the store file when \
            the store's defining requests cover what the path reads, else from the service \
            (docs/mixed.md); stderr says which ("source: offline" or "source: online").

            Examples:
              odatastore get "Products?$filter=Price gt 10&$top=3" --service http://host/odata/
              odatastore get "Products(7)" --store products.store --mode offline
              odatastore get "Orders?$top=3" --service http://host/odata/ --store products.store --mode mixed
            """,
        arguments: [.positional("path", help: "The path relative to the service root, or a full URL under it.")]
            + ConnectionOptions.arguments + [
                .option("mode", help: "online (default): ask the service; offline: answer from --store; mixed: from --store when its defining requests cover the path, else from the service.",
                        value: Argument.choice(Mode.self), default: Mode.online.rawValue),
                Output.argument,
                .flag("all-pages", help: "Follow next links and print every page as one collection."),
            ])

    enum Mode: String, CaseIterable {
        case online, offline, mixed
    }

    enum Output: String, CaseIterable {
        case json, table

        /// `--output json|table`, shared by get, call and metadata.
        static let argument = Argument.option("output", help: "json (default) or table.", value: Argument.choice(Output.self),
                                              default: Output.json.rawValue)
    }

    var path: String
    var connection: ConnectionOptions
    var mode: Mode
    var output: Output
    var allPages: Bool

    init(_ a: ParsedArguments) {
        path = a.required("path")
        connection = ConnectionOptions(a)
        mode = a.choice("mode", default: .online)
        output = a.choice("output", default: .json)
        allPages = a.flag("all-pages")
    }

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
        if response.json.isEmpty, !response.body.isEmpty {
            // No JSON ($metadata, a media $value): the body as received, whatever --output says.
            var body = response.body
            if body.last != UInt8(ascii: "\n") { body.append(UInt8(ascii: "\n")) }
            fflush(nil)  // what print() buffered goes first
            body.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(1, raw.baseAddress! + done, raw.count - done)
                    if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
            return
        }
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
