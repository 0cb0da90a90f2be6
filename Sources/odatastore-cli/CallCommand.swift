import ODataStore

/// `odatastore call PATH`: a function or action import on the service.
struct CallCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "call",
        abstract: "Call a function or action import on the service.",
        discussion: """
            The path names the operation with its parameters as the service's version writes them \
            (V4: Name(p=1,q='x'); V2: Name?p=1&q='x'). V4 actions take their parameters as a JSON \
            object with --data. The HTTP method is the one $metadata declares (V2 m:HttpMethod, V4 \
            GET for functions and POST for actions). Function imports always go to the service, \
            also with --store (an offline store refuses them: exit 30).

            Examples:
              odatastore call "GetAvailableFlights?fromdate=datetime'2026-06-01T00:00:00'&todate=datetime'2026-06-14T00:00:00'&cityfrom='Frankfurt'&cityto='New York'" --service http://host/sap/opu/odata/IWFND/RMTSAMPLEFLIGHT/
              odatastore call "ResetDataSource" --data '{}' --service http://host/odata/
            """,
        arguments: [
            .positional("path", help: "The operation import with its parameters, relative to the service root."),
            .option("data", help: "The parameters of an action, as a JSON object."),
        ] + ConnectionOptions.arguments + [GetCommand.Output.argument])

    var path: String
    var data: String?
    var connection: ConnectionOptions
    var output: GetCommand.Output

    init(_ a: ParsedArguments) {
        path = a.required("path")
        data = a.string("data")
        connection = ConnectionOptions(a)
        output = a.choice("output", default: .json)
    }

    func run() async throws {
        let options = try connection.storeOptions(kind: .online)
        let store = try await openStore(options)
        var request = ODataRequest.call(ResourcePath(path))
        if let data { request.body = .json(data) }
        let response = try await withStore(store) { (store) async throws(ODataStoreError) in try await store.send(request) }
        switch output {
        case .json: print(response.json)
        case .table: print(Table.render(response.json))
        }
    }
}
