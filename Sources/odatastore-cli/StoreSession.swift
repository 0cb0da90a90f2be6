import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import ODataStore

/// Options shared by the commands that talk to a service or a store.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("service"), help: "The service root URL (optional for an existing offline store: it knows its service).")
    var service: String?

    @Option(name: .customLong("store"), help: "The offline store file.")
    var store: String?

    @Option(name: .customLong("header"), help: "A header sent with every request, \"Name: value\" (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("user"), help: "Basic authentication user (or $ODATASTORE_USER; the password from $ODATASTORE_PASSWORD).")
    var user: String?

    @Flag(name: .customLong("bearer"), help: "Send $ODATASTORE_TOKEN as a bearer token.")
    var bearer = false

    @Option(name: .customLong("timeout"), help: "Seconds allowed for each HTTP exchange (default 60).")
    var timeout: Int?

    @Flag(name: .customLong("insecure"), help: "Skip TLS certificate verification (test servers only).")
    var insecure = false

    /// The store options these flags describe, for `kind`.
    func storeOptions(kind: StoreKind) throws -> StoreOptions {
        var root = service
        if root == nil, kind == .offline, let store {
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

/// Blocking helpers over the Swift API's callbacks, for a command-line program.
enum Blocking {
    /// Opens a store and waits until it is open; throws its open error.
    static func open(_ options: StoreOptions) throws -> Store {
        let done = Mutex<(StoreState, ODataStoreError?)?>(nil)
        let signal = Semaphore()
        let store = try attempt { () throws(ODataStoreError) in
            try Store(options: options) { _, state, error in
                guard state != .opening else { return }
                let first = done.withLock { d -> Bool in
                    guard d == nil else { return false }
                    d = (state, error)
                    return true
                }
                if first { signal.signal() }
            }
        }
        signal.wait()
        let (state, error) = done.withLock { $0 } ?? (.failed, nil)
        if state != .open {
            let e = error ?? ODataStoreError(.error, "the store did not open")
            try? store.close()
            report(e)
            throw statusExit(for: e)
        }
        return store
    }

    /// Runs one request and waits for its outcome.
    static func run(_ store: Store, _ mode: RequestMode, _ path: String, body: String? = nil,
                    configure: (Request) throws(ODataStoreError) -> Void = { _ in }) throws -> Result<Response, RequestFailure> {
        let outcome = Mutex<Result<Response, RequestFailure>?>(nil)
        let signal = Semaphore()
        try attempt { () throws(ODataStoreError) in
            let request = try store.makeRequest(mode, path: path, body: body)
            try configure(request)
            try request.setCompletion { _, result in
                outcome.withLock { $0 = result }
                signal.signal()
            }
            try request.start()
        }
        signal.wait()
        return outcome.withLock { $0 }!
    }
}

/// A counting semaphore on a pthread mutex and condition variable.
final class Semaphore: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    private var count = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&cond, nil)
    }

    func signal() {
        pthread_mutex_lock(&mutex)
        count += 1
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
    }

    func wait() {
        pthread_mutex_lock(&mutex)
        while count == 0 { pthread_cond_wait(&cond, &mutex) }
        count -= 1
        pthread_mutex_unlock(&mutex)
    }
}
