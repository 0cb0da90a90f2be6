import ODataStore

/// Where a change goes: the service, an offline store's file and upload queue, or (mixed)
/// the file when the store's defining requests cover the entity set, else the service.
enum ChangeMode: String, CaseIterable {
    case online, offline, mixed

    var storeKind: StoreKind {
        switch self {
        case .online: .online
        case .offline: .offline
        case .mixed: .mixed
        }
    }
}

/// What the change commands share.
struct ChangeOptions {
    static let arguments: [Argument] = ConnectionOptions.arguments + [
        .option("mode", help: "online (default): send it to the service; offline: change --store and queue it for upload; mixed: queue it in --store when its defining requests cover the entity set, else send it to the service.",
                value: Argument.choice(ChangeMode.self), default: ChangeMode.online.rawValue),
        .option("if-match", help: "The ETag the entity must still have (* for any)."),
    ]

    var connection: ConnectionOptions
    var mode: ChangeMode
    var ifMatch: String?

    init(_ a: ParsedArguments) {
        connection = ConnectionOptions(a)
        mode = a.choice("mode", default: .online)
        ifMatch = a.string("if-match")
    }

    func validate() throws {
        if mode != .online && connection.store == nil { throw ValidationError("--mode \(mode.rawValue) needs --store FILE") }
    }

    /// Runs the change and prints the answer's JSON, if it has one.
    func run(_ requestMode: RequestMode, _ path: String, body: String?) async throws {
        let store = try await openStore(try connection.storeOptions(kind: mode.storeKind))
        let request = ODataRequest(requestMode, ResourcePath(path), body: body.map { RequestBody.json($0) }, etag: ifMatch)
        let response = try await withStore(store) { (store) async throws(ODataStoreError) in try await store.send(request) }
        if mode == .mixed { reportSource(response) }
        if !response.json.isEmpty { print(response.json) }
    }
}

/// `odatastore create PATH --data JSON`
struct CreateCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "create",
        abstract: "Create an entity (POST), online or in an offline store.",
        discussion: """
            Prints the created entity as the service (or the offline store) answers it. Offline, \
            an entity whose key the service assigns gets a local key (negative numbers, local-N \
            strings) until it is uploaded.

            Examples:
              odatastore create Customers --data '{"CustomerID":"NEW","CompanyName":"New"}' --service http://host/odata/
              odatastore create Categories --data '{"Name":"Made offline"}' --store my.store --mode offline
            """,
        arguments: [
            .positional("path", help: "The entity set (or navigation) to create in."),
            .option("data", help: "The entity as JSON.", required: true),
        ] + ChangeOptions.arguments)

    var path: String
    var data: String
    var change: ChangeOptions

    init(_ a: ParsedArguments) {
        path = a.required("path")
        data = a.required("data")
        change = ChangeOptions(a)
    }

    func validate() throws { try change.validate() }

    func run() async throws { try await change.run(.create, path, body: data) }
}

/// `odatastore update PATH --data JSON`
struct UpdateCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "update",
        abstract: "Update an entity: merge the given properties (MERGE on V2, PATCH on V4), or replace it with --replace (PUT).",
        discussion: """
            Examples:
              odatastore update "Products(7)" --data '{"Price":"9.90"}' --if-match 'W/"3"' --service http://host/odata/
              odatastore update "Products(7)" --data '{"Price":"9.90"}' --store my.store --mode offline
            """,
        arguments: [
            .positional("path", help: "The entity, by key."),
            .option("data", help: "The properties to change as a JSON object (with --replace: the whole entity).", required: true),
            .flag("replace", help: "Replace the entity (PUT) instead of merging."),
        ] + ChangeOptions.arguments)

    var path: String
    var data: String
    var replace: Bool
    var change: ChangeOptions

    init(_ a: ParsedArguments) {
        path = a.required("path")
        data = a.required("data")
        replace = a.flag("replace")
        change = ChangeOptions(a)
    }

    func validate() throws { try change.validate() }

    func run() async throws { try await change.run(replace ? .updatePut : .update, path, body: data) }
}

/// `odatastore delete PATH`
struct DeleteCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "delete",
        abstract: "Delete an entity, online or in an offline store.",
        discussion: """
            Examples:
              odatastore delete "Products(8)" --if-match '*' --service http://host/odata/
              odatastore delete "Products(8)" --store my.store --mode offline
            """,
        arguments: [.positional("path", help: "The entity, by key.")] + ChangeOptions.arguments)

    var path: String
    var change: ChangeOptions

    init(_ a: ParsedArguments) {
        path = a.required("path")
        change = ChangeOptions(a)
    }

    func validate() throws { try change.validate() }

    func run() async throws { try await change.run(.delete, path, body: nil) }
}
