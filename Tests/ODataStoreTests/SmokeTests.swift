import Testing
@testable import ODataStore
@Test func placeholder() { #expect(odataStoreBuild == 1) }
