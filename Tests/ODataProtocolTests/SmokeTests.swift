import Testing
@testable import ODataProtocol
@Test func versionDescription() { #expect(ODataVersion.v4.description == "4.0") }
