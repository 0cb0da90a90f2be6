import Testing

/// The harness itself: each real server starts, answers, and stops (Tests/servers).
@Suite("Test servers")
struct TestServerTests {
    @Test func v4ServiceServesMetadataAndSeedData() throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        #expect(server.serviceRoot.hasSuffix("/odata/"))
        let (status, body) = try server.rawRequest("GET", "/odata/$metadata")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("EntitySet Name=\"Products\""))
        let (countStatus, count) = try server.rawRequest("GET", "/odata/Products/$count")
        #expect(countStatus == 200)
        #expect(String(decoding: count, as: UTF8.self) == "300")
    }

    @Test func v2ServiceServesMetadataAndSeedData() throws {
        let server = try TestServer.start(.v2, pageSize: 25)
        defer { server.stop() }
        #expect(server.serviceRoot.hasSuffix("/v2/"))
        let (status, body) = try server.rawRequest("GET", "/v2/$metadata")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("ODataStoreTestV2"))
        let (countStatus, count) = try server.rawRequest("GET", "/v2/Products/$count")
        #expect(countStatus == 200)
        #expect(String(decoding: count, as: UTF8.self) == "300")
    }

    @Test func faultProxyPassesThroughAndInjects() throws {
        let upstream = try TestServer.start(.v4)
        defer { upstream.stop() }
        let proxy = try TestServer.faultProxy(upstream: upstream.serviceRoot)
        defer { proxy.stop() }
        #expect(proxy.serviceRoot == proxy.origin + "/odata/")

        let (ok, _) = try proxy.rawRequest("GET", "/odata/Categories(1)")
        #expect(ok == 200)
        try proxy.setFault("http500", count: 1)
        let (failed, html) = try proxy.rawRequest("GET", "/odata/Categories(1)")
        #expect(failed == 500)
        #expect(String(decoding: html, as: UTF8.self).contains("<html>"))
        let (again, _) = try proxy.rawRequest("GET", "/odata/Categories(1)")
        #expect(again == 200)
        #expect(try proxy.faultState().contains("\"faults\": 1"))
    }

    @Test func stopIsIdempotentAndEndsTheProcess() throws {
        let server = try TestServer.start(.v4)
        server.stop()
        server.stop()
        // The process is gone: signal 0 reports ESRCH once it has been reaped.
        #expect(kill(server.pid, 0) == -1)
    }
}

#if canImport(Glibc)
import Glibc
#endif
