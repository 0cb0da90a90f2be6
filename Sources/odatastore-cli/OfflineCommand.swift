#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataStore

/// `odatastore offline ...`: offline store files.
enum OfflineCommand {
    static let command = Command(
        name: "offline",
        abstract: "Create, inspect and synchronize offline stores.",
        discussion: """
            Example:
              odatastore offline init --service http://host/odata/ --store my.store --define Products
              odatastore get "Products?$top=3" --store my.store --mode offline
              odatastore update "Products(7)" --data '{"Price":"9.90"}' --store my.store --mode offline
              odatastore offline upload --store my.store
              odatastore offline download --store my.store
            """,
        subcommands: [Init.command, Status.command, Upload.command, Download.command, Errors.command])

    /// `odatastore offline init --service URL --store FILE --define REQUEST ...`
    struct Init: RunnableCommand {
        static let command = Command(
            Self.self, name: "init",
            abstract: "Create an offline store and download its defining requests.",
            discussion: """
                Checks every defining request against the service's $metadata, creates the store \
                file and downloads the requests page by page (a progress bar on stderr when it is \
                a terminal). An interrupted download resumes when the command runs again. Prints \
                the store's status as JSON.

                Example:
                  odatastore offline init --service http://host/sap/opu/odata/IWFND/RMTSAMPLEFLIGHT/ \
                      --store flights.store --define TravelagencyCollection \
                      --define "FlightCollection?$filter=carrid eq 'LH'&$expand=flightBookings"
                """,
            arguments: ConnectionOptions.arguments + [
                .option("define", help: "A defining request (repeatable).", repeating: true),
                .option("page-size", help: "Entities per page asked of V4 services while downloading (default 1000).", value: .integer),
                .flag("quiet", help: "No progress bar."),
            ])

        var connection: ConnectionOptions
        var definitions: [String]
        var pageSize: Int?
        var quiet: Bool

        init(_ a: ParsedArguments) {
            connection = ConnectionOptions(a)
            definitions = a.strings("define")
            pageSize = a.int("page-size")
            quiet = a.flag("quiet")
        }

        func validate() throws {
            guard let path = connection.store else { throw ValidationError("--store FILE is required") }
            // An existing store file knows its service (as for `offline status`); a new one
            // is made for the service given.
            var st = stat()
            if connection.service == nil, stat(path, &st) != 0 || st.st_size == 0 {
                throw ValidationError("--service URL is required to make a new store file (\(path) does not exist yet)")
            }
        }

        func run() async throws {
            var options = try connection.storeOptions(kind: .offline)
            options.definingRequests = definitions
            if let pageSize { options.downloadPageSize = max(pageSize, 0) }
            let opening = try attempt { () throws(ODataStoreError) in try Store.opening(options) }
            if !quiet, isatty(2) != 0 {
                // The bar follows the download; the sequence ends when the store is open.
                let bar = ProgressBar()
                var shown = false
                for await p in opening.progress {
                    bar.show(p)
                    shown = true
                }
                if shown { writeError("") }
            }
            let store = try exitOnFailure(await result { () async throws(ODataStoreError) in try await opening.opened() })
            let status = result { () throws(ODataStoreError) in try StatusJSON.render(store) }
            await store.close()
            print(try exitOnFailure(status))
        }
    }

    /// `odatastore offline status --store FILE`
    struct Status: RunnableCommand {
        static let command = Command(
            Self.self, name: "status",
            abstract: "Print an offline store's defining requests, download state, size, pending changes and archived errors as JSON.",
            discussion: "Example: odatastore offline status --store flights.store",
            arguments: ConnectionOptions.arguments)

        var connection: ConnectionOptions

        init(_ a: ParsedArguments) { connection = ConnectionOptions(a) }

        func validate() throws {
            if connection.store == nil { throw ValidationError("--store FILE is required") }
        }

        func run() async throws {
            let store = try await openStore(try connection.storeOptions(kind: .offline))
            let status = result { () throws(ODataStoreError) in try StatusJSON.render(store) }
            await store.close()
            print(try exitOnFailure(status))
        }
    }
}

/// An offline store's status as JSON.
enum StatusJSON {
    static func render(_ store: Store) throws(ODataStoreError) -> String {
        render(try store.offlineInfo(), pending: try store.pendingChangeCount(), failed: Int64(try store.errorArchive().count))
    }

    static func render(_ info: OfflineStoreInfo, pending: Int64, failed: Int64) -> String {
        var o = JSONObject()
        o["pendingChanges"] = .number(String(pending))
        o["failedChanges"] = .number(String(failed))
        o["store"] = .string(info.path)
        o["sizeBytes"] = .number(String(info.sizeInBytes))
        o["lastDownload"] = info.lastDownload.map { .string($0) } ?? .null
        o["definingRequests"] = .array(info.definingRequests.map { d in
            var r = JSONObject()
            r["path"] = .string(d.path)
            r["entitySet"] = .string(d.entitySet)
            r["complete"] = .bool(d.isComplete)
            r["entities"] = .number(String(d.entities))
            r["bytes"] = .number(String(d.bytes))
            r["expectedEntities"] = d.expectedEntities.map { .number(String($0)) } ?? .null
            r["lastDownload"] = d.lastDownload.map { .string($0) } ?? .null
            return .object(r)
        })
        return JSONValue.object(o).serialized()
    }
}

/// A one-line progress bar on stderr, redrawn in place.
struct ProgressBar {
    func show(_ p: DownloadProgress) {
        var line = "\r\u{1B}[2K[\(p.requestIndex + 1)/\(p.requestCount)] \(p.definingRequest.prefix(40)) "
        if let expected = p.expectedEntities, expected > 0 {
            let done = min(Int(p.entities * 30 / expected), 30)
            line += "[" + String(repeating: "#", count: done) + String(repeating: ".", count: 30 - done) + "] "
            line += "\(p.entities)/\(expected)"
        } else {
            line += "\(p.entities) entities"
        }
        line += " \(p.totalBytes / 1024) KiB"
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
