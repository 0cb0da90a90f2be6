/// Creates the engine for a store's kind.
func makeEngine(for options: StoreOptions) throws(ODataStoreError) -> any RequestEngine {
    switch options.kind {
    case .online:
        let configuration = CurlTransportConfiguration(
            caBundlePath: options.caBundlePath,
            verifyTLS: !options.insecureSkipTLSVerify,
            connectTimeoutMilliseconds: options.connectTimeoutMilliseconds > 0 ? options.connectTimeoutMilliseconds : 10_000,
            defaultTimeoutMilliseconds: options.requestTimeoutMilliseconds,
            maxConnectionsPerHost: max(options.maxConnections, 1),
            maxTotalConnections: max(options.maxConnections, 1),
            userAgent: options.userAgent)
        let transport: CurlTransport
        do {
            transport = try CurlTransport(configuration: configuration)
        } catch {
            throw ODataStoreError(.invalidArgument, "cannot set up HTTP: \(error)")
        }
        return OnlineEngine(options: options, transport: transport)
    case .offline, .mixed:
        throw ODataStoreError(.unsupported, "offline and mixed stores are not available in this release")
    }
}
