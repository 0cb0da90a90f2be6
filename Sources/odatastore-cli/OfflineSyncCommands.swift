#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataStore

extension OfflineCommand {
    /// `odatastore offline upload --store FILE`
    struct Upload: RunnableCommand {
        static let command = Command(
            Self.self, name: "upload",
            abstract: "Send the store's local changes to the service, in order.",
            discussion: """
                Prints {"confirmed":N,"failed":N,"remaining":N}. Changes the service refuses go to \
                the error archive (odatastore offline errors); the rest go on. Exit status 0 when \
                every change was confirmed, 3 when some went to the archive, 10+status when the \
                upload stopped (the service unreachable: 24); nothing is lost, run it again.

                Example: odatastore offline upload --store my.store
                """,
            arguments: ConnectionOptions.arguments + [.flag("quiet", help: "No progress on stderr.")])

        var connection: ConnectionOptions
        var quiet: Bool

        init(_ a: ParsedArguments) {
            connection = ConnectionOptions(a)
            quiet = a.flag("quiet")
        }

        func validate() throws {
            if connection.store == nil { throw ValidationError("--store FILE is required") }
        }

        func run() async throws {
            let store = try await openStore(try connection.storeOptions(kind: .offline))
            let show = !quiet && isatty(2) != 0
            let r = try await withStore(store) { (store) async throws(ODataStoreError) -> UploadResult in
                let transfer = try store.uploading()
                if show {
                    for await p in transfer.progress { writeProgress("upload: \(p.sent)/\(p.total) sent, \(p.failed) refused") }
                    writeError("")
                }
                return try await transfer.value()
            }
            print(#"{"confirmed":\#(r.confirmed),"failed":\#(r.failed),"remaining":\#(r.remaining)}"#)
            if r.failed > 0 { throw ExitCode(3) }
        }
    }

    /// `odatastore offline download --store FILE [--request PATH ...]`
    struct Download: RunnableCommand {
        static let command = Command(
            Self.self, name: "download",
            abstract: "Bring fresh data for the store's defining requests (all, or those named).",
            discussion: """
                A delta where the service gave a delta link, else a full download that replaces \
                what each defining request brought down. Local changes not uploaded stay on top. \
                --add records a new defining request first (and downloads it); --remove removes \
                one and what only it brought down. Prints the store's status as JSON.

                Examples:
                  odatastore offline download --store my.store
                  odatastore offline download --store my.store --add "Customers" --remove "Products?$filter=ID gt 100"
                """,
            arguments: ConnectionOptions.arguments + [
                .option("request", help: "Download only this defining request (repeatable).", repeating: true),
                .option("add", help: "Add a defining request and download it (repeatable).", repeating: true),
                .option("remove", help: "Remove a defining request and what only it brought down (repeatable).", repeating: true),
                .flag("quiet", help: "No progress bar."),
            ])

        var connection: ConnectionOptions
        var requests: [String]
        var additions: [String]
        var removals: [String]
        var quiet: Bool

        init(_ a: ParsedArguments) {
            connection = ConnectionOptions(a)
            requests = a.strings("request")
            additions = a.strings("add")
            removals = a.strings("remove")
            quiet = a.flag("quiet")
        }

        func validate() throws {
            if connection.store == nil { throw ValidationError("--store FILE is required") }
        }

        func run() async throws {
            let store = try await openStore(try connection.storeOptions(kind: .offline))
            let show = !quiet && isatty(2) != 0
            let status = try await withStore(store) { (store) async throws(ODataStoreError) -> String in
                for path in removals { try store.removeDefiningRequest(path) }
                for path in additions { try store.addDefiningRequest(path) }
                if removals.isEmpty || !additions.isEmpty || !requests.isEmpty {
                    let chosen = requests.isEmpty && additions.isEmpty ? nil : requests + additions
                    let transfer = try store.downloading(chosen)
                    if show {
                        let bar = ProgressBar()
                        for await p in transfer.progress { bar.show(p) }
                        writeError("")
                    }
                    try await transfer.value()
                }
                return try StatusJSON.render(store)
            }
            print(status)
        }
    }

    /// `odatastore offline errors --store FILE [--retry ID | --revert ID]`
    struct Errors: RunnableCommand {
        static let command = Command(
            Self.self, name: "errors",
            abstract: "List the error archive (changes the service refused), or resolve one entry.",
            discussion: """
                Without options: prints the archive as JSON (the ErrorArchive collection). \
                --retry ID queues the change again for the next upload, after merging --data into \
                the local entity and with --if-match as its new If-Match (* to overwrite the \
                service's version). --revert ID drops the change and puts the service's version of \
                the entity back (reads it from the service).

                Examples:
                  odatastore offline errors --store my.store
                  odatastore offline errors --store my.store --retry 3 --if-match '*'
                  odatastore offline errors --store my.store --revert 4
                """,
            arguments: ConnectionOptions.arguments + [
                .option("retry", help: "Queue archived change ID again.", value: .integer),
                .option("revert", help: "Drop archived change ID; the entity goes back to the service's version.", value: .integer),
                .option("data", help: "With --retry: properties (JSON object) merged into the entity first."),
                .option("if-match", help: "With --retry: the ETag to send instead (* for any)."),
            ])

        var connection: ConnectionOptions
        var retry: Int64?
        var revert: Int64?
        var data: String?
        var ifMatch: String?

        init(_ a: ParsedArguments) {
            connection = ConnectionOptions(a)
            retry = a.int64("retry")
            revert = a.int64("revert")
            data = a.string("data")
            ifMatch = a.string("if-match")
        }

        func validate() throws {
            if connection.store == nil { throw ValidationError("--store FILE is required") }
            if retry != nil && revert != nil { throw ValidationError("--retry and --revert exclude each other") }
            if retry == nil && (data != nil || ifMatch != nil) { throw ValidationError("--data and --if-match go with --retry") }
        }

        func run() async throws {
            let store = try await openStore(try connection.storeOptions(kind: .offline))
            let archive = try await withStore(store) { (store) async throws(ODataStoreError) -> String? in
                if let retry {
                    try store.retryError(id: retry, body: data, etag: ifMatch)
                } else if let revert {
                    try await store.revertError(id: revert)
                } else {
                    return try await store.read("ErrorArchive").json
                }
                return nil
            }
            if let archive { print(archive) }
        }
    }
}

/// A progress line on stderr, redrawn in place.
func writeProgress(_ text: String) {
    let bytes = Array("\r\u{1B}[2K\(text)".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
