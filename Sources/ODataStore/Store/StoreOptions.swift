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

    public init(serviceRoot: String) {
        self.serviceRoot = serviceRoot
    }
}
