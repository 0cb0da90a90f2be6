#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataStore

/// Options shared by the commands that talk to a service or a store.
struct ConnectionOptions {
    static let arguments: [Argument] = [
        .option("service", help: "The service root URL (optional for an existing offline store: it knows its service)."),
        .option("store", help: "The offline store file."),
        .option("header", help: "A header sent with every request, \"Name: value\" (repeatable).", repeating: true),
        .option("user", help: "Basic authentication user (or $ODATASTORE_USER; the password from $ODATASTORE_PASSWORD)."),
        .flag("bearer", help: "Send $ODATASTORE_TOKEN as a bearer token."),
        .option("timeout", help: "Seconds allowed for each HTTP exchange (default 60).", value: .integer),
        .flag("insecure", help: "Skip TLS certificate verification (test servers only)."),
        .counter("verbose", short: "v",
                 help: "Log what the library does to stderr: -v requests with status and time, retries, logon, sync steps; -vv also debug detail (never credentials)."),
    ]

    var service: String?
    var store: String?
    var headers: [String]
    var user: String?
    var bearer: Bool
    var timeout: Int?
    var insecure: Bool
    var verbose: Int

    init(_ a: ParsedArguments) {
        service = a.string("service")
        store = a.string("store")
        headers = a.strings("header")
        user = a.string("user")
        bearer = a.flag("bearer")
        timeout = a.int("timeout")
        insecure = a.flag("insecure")
        verbose = a.count("verbose")
    }

    /// The store options these flags describe, for `kind`.
    func storeOptions(kind: StoreKind) throws -> StoreOptions {
        _ = SQLiteProcessSettings.applied  // before the first use of SQLite
        _ = MallocSettings.applied
        VerboseLog.start(verbose)
        var root = service
        if root == nil, kind != .online, let store {
            root = try attempt { () throws(ODataStoreError) in try Store.serviceRoot(ofStoreAt: store) }
        }
        guard let root else { throw ValidationError("--service is required") }
        var o = StoreOptions(serviceRoot: root)
        o.kind = kind
        o.storePath = store
        for line in headers {
            guard let colon = line.firstIndex(of: ":") else { throw ValidationError("--header must look like \"Name: value\"") }
            o.headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " })))
        }
        let environment = Environment()
        if let user = user ?? environment["ODATASTORE_USER"] {
            o.authentication = .basic(username: user, password: environment["ODATASTORE_PASSWORD"] ?? "")
        } else if bearer {
            guard let token = environment["ODATASTORE_TOKEN"] else { throw ValidationError("--bearer needs $ODATASTORE_TOKEN") }
            o.authentication = .bearer(token: token)
        }
        if let timeout { o.requestTimeoutMilliseconds = max(timeout, 1) * 1000 }
        o.insecureSkipTLSVerify = insecure
        return o
    }
}

/// Environment variables (no Foundation).
struct Environment {
    subscript(name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }
}

/// Library failures as exit statuses: 10 + the status number (ODS_ENOTFOUND = -5 gives 15).
func statusExit(for error: ODataStoreError) -> ExitCode {
    error.code == .syntax ? ExitCode(2) : ExitCode(10 + Int32(-error.code.rawValue))
}

/// Runs a library call; a failure is printed on stderr and becomes the exit status.
func attempt<T>(_ body: () throws(ODataStoreError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        report(error)
        throw statusExit(for: error)
    }
}

func report(_ error: ODataStoreError) {
    var line = "error: \(error.message)"
    if error.position >= 0 { line += " (at position \(error.position))" }
    writeError(line)
}

/// Opens a store and waits until it is open (an offline store's download included); its
/// error is printed and becomes the exit status.
func openStore(_ options: StoreOptions) async throws -> Store {
    try exitOnFailure(await result { () async throws(ODataStoreError) in try await Store.open(options) })
}

/// Runs `body` with an open store, closes the store, then returns what `body` returned, or
/// prints its error and exits with the status.
func withStore<T>(_ store: Store, _ body: (Store) async throws(ODataStoreError) -> T) async throws -> T {
    let outcome = await result { () async throws(ODataStoreError) in try await body(store) }
    await store.close()
    return try exitOnFailure(outcome)
}

/// The outcome of a library call, to act on after the store is closed.
func result<T>(_ body: () async throws(ODataStoreError) -> T) async -> Result<T, ODataStoreError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

func result<T>(_ body: () throws(ODataStoreError) -> T) -> Result<T, ODataStoreError> {
    do {
        return .success(try body())
    } catch {
        return .failure(error)
    }
}

/// The value, or the error printed on stderr and thrown as the exit status.
func exitOnFailure<T>(_ outcome: Result<T, ODataStoreError>) throws -> T {
    switch outcome {
    case .success(let value): return value
    case .failure(let error):
        report(error)
        throw statusExit(for: error)
    }
}
