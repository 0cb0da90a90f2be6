import Testing
@testable import ODataStore

/// The service root's host and port are checked when the store opens (`ServiceRootRules`), so
/// a malformed root fails `open` with a message naming the problem instead of failing every
/// request inside libcurl.
@Suite("Service root rules")
struct ServiceRootRulesTests {
    @Test(arguments: [
        "http://127.0.0.1:8080/service/",
        "https://services.odata.org/V4/TripPinService/",
        "http://localhost/odata/",
        "http://[::1]:8080/",
        "http://[::1]/odata/",
        "http://[fe80::1%25eth0]:80/",
        "http://[::ffff:127.0.0.1]/",
        "http://sap-host_01.example.com:50000/sap/opu/odata/sap/ZSRV/",
        "http://b\u{00FC}cher.example/odata/",  // an internationalized name
        "http://%65xample.org/",
        "http://host:/",  // RFC 3986 allows an empty port
        "http://host:65535/",
    ])
    func acceptsWellFormedRoots(_ root: String) throws {
        #expect(ServiceRootRules.authorityProblem(root) == nil)
        try ServiceRootRules.check(root)
    }

    @Test(arguments: [
        ("http://[::1", "an IP literal without its ']'"),
        ("http://[::1/odata/", "an IP literal without its ']'"),
        ("http://[]/", "an invalid IP literal"),
        ("http://[127.0.0.1]/", "an invalid IP literal"),
        ("http://[::g]/", "an invalid IP literal"),
        ("http://[::1]x/", "text after its IP literal"),
        ("http://host:0/", "an invalid port (1-65535)"),
        ("http://host:65536/", "an invalid port (1-65535)"),
        ("http://host:080808/", "an invalid port (1-65535)"),
        ("http://host:8o/", "an invalid port (1-65535)"),
        ("http://host:-1/", "an invalid port (1-65535)"),
        ("http://a:b:c/", "a character not allowed in a host name"),
        ("http://ho<st/", "a character not allowed in a host name"),
        ("http://ho\"st/", "a character not allowed in a host name"),
        ("http://ho%2/", "a '%' in its host that is not an escape"),
        ("http://ho%zz.org/", "a '%' in its host that is not an escape"),
        ("http://:8080/", "no host"),
    ])
    func refusesMalformedAuthorities(_ root: String, _ problem: String) {
        #expect(ServiceRootRules.authorityProblem(root) == problem)
        do {
            try ServiceRootRules.check(root)
            Issue.record("\(root) was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("service_root has \(problem)"))
        }
    }
}
