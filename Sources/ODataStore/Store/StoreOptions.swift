/// Configuration of a store. Every field has a sensible default; only `serviceRoot` is required.
public struct StoreOptions: Sendable {
    public var kind: StoreKind = .online
    /// http(s) URL of the service root, e.g. `https://host/sap/opu/odata/IWFND/RMTSAMPLEFLIGHT/`.
    public var serviceRoot: String
    public var dispatch: DispatchMode = .thread
    /// The protocol version; nil detects it from `$metadata`.
    public var odataVersion: ODataVersion? = nil
    public var authentication: Authentication = .none
    /// Header lines sent with every request (after the library's own, so they can override them).
    public var headers: [(name: String, value: String)] = []
    /// PEM file of trusted CAs; nil uses the system's.
    public var caBundlePath: String? = nil
    /// Disables TLS certificate and host verification. For tests against self-signed servers only.
    public var insecureSkipTLSVerify: Bool = false
    public var connectTimeoutMilliseconds: Int = 10_000
    /// Time limit of each HTTP exchange.
    public var requestTimeoutMilliseconds: Int = 60_000
    /// Parallel connections to the service.
    public var maxConnections: Int = 8
    public var userAgent: String = "libodatastore/\(LibraryVersion.string)"
    /// SAP X-CSRF-Token handling: fetch a token when the service demands one and retry once.
    public var csrfProtection: Bool = true
    /// `$metadata` document to use instead of fetching it from the service.
    public var metadataDocument: [UInt8]? = nil
    /// A file holding the `$metadata` document (read when the store opens); ignored when
    /// `metadataDocument` is set.
    public var metadataPath: String? = nil
    /// Bounds on responses, pages, error text and pending requests (see `StoreLimits`).
    public var limits = StoreLimits()

    // MARK: Logon (docs/logon.md)

    /// Asked for credentials when the service wants them (a 401, or a login page with
    /// `sessionExpiredOnLoginPage`); nil: a 401 is the request's answer. Requests that hit
    /// it, and those started meanwhile, wait for the reply and are sent again.
    public var logonHandler: LogonHandler? = nil
    /// Whether a 2xx HTML answer to an OData request (SAP's login page when a session
    /// expired behind a single sign-on proxy) means "log on again" like a 401.
    public var sessionExpiredOnLoginPage: Bool = false
    /// Prompts in a row whose credentials the service refuses before the waiting requests
    /// fail with `.unauthorized` (also: how often one request is sent again after a logon).
    public var maxLogonAttempts: Int = 3

    // MARK: Offline stores

    /// The store file (offline and mixed stores). Created on first open.
    public var storePath: String? = nil
    /// The defining requests (offline stores): READ paths relative to the service root, or
    /// full URLs under it, whose results the store downloads and answers from. A new store
    /// needs at least one; reopening adds those the file does not have yet and keeps the rest.
    public var definingRequests: [String] = []
    /// Download progress, reported after each page written (through the dispatch mode).
    public var downloadProgress: (@Sendable (Store, DownloadProgress) -> Void)? = nil
    /// Page size asked of V4 services while downloading (`Prefer: odata.maxpagesize`), so a
    /// page held in memory stays small; 0 leaves it to the service. V2 services page as they do.
    public var downloadPageSize: Int = 1000
    /// Changes sent per `$batch` request when uploading (offline stores), each dependent group
    /// of changes in one changeset (docs/offline.md, "Upload"). A service without `$batch`
    /// (a 404, 405 or 501 to it) is sent one request per change, and the store file remembers
    /// that. 1 or less: one request per change always.
    public var uploadBatchSize: Int = 100

    public init(serviceRoot: String) {
        self.serviceRoot = serviceRoot
    }
}
