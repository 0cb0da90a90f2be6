// odatastore: the command-line companion of libodatastore. See docs/cli.md.
// Built on the Swift API's async/await surface (docs/swift.md), as an app would use it.
import ODataStore

@main
enum ODataStoreCommand {
    static let command = Command(
        name: "odatastore",
        abstract: "Read and change OData V2/V4 services online or through an offline store, and check OData URLs.",
        discussion: """
            Exit status: 0 success; 2 an invalid URL or document; 3 an upload whose refused changes went to the error archive; 11-31 a library status \
            (10 + its number: 15 not found, 24 service unreachable, 29 not in the offline store's \
            scope...; docs/cli.md lists them); 64 usage error; 66 a file cannot be read.
            """,
        subcommands: [ParseCommand.command, GetCommand.command, CreateCommand.command, UpdateCommand.command,
                      DeleteCommand.command, CallCommand.command, MetadataCommand.command, OfflineCommand.command,
                      Command.help],
        version: "odatastore \(LibraryVersion.string)")

    static func main() async {
        await CommandLineTool.main(command, Array(CommandLine.arguments.dropFirst()))
    }
}
