import Foundation

/// The $metadata/CSDL documents copied from /work/shared/testdata into Tests/Fixtures
/// (upstream layout: `<owner>/<repo>/<path>`), located relative to this file.
enum MetadataFixture: String, CaseIterable, Sendable {
    case gwsampleBasic = "gregorwolf/bookshop-demo/srv/external/GWSAMPLE_BASIC/GWSAMPLE_BASIC.edmx"
    case pyodataExample = "SAP/python-pyodata/tests/metadata.xml"
    case northwindV2 = "SAP/python-pyodata/tests/metadata_odata_org_northwind_v2.xml"
    case refScenario = "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/refScenario.edmx"
    case sapHybrid = "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/$metadata.xml"
    case northwindV4Olingo = "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/northwind-metadata.xml"
    case tripPinOlingo = "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/metadata_TripInService.xml"
    case northwindBareSchema = "OData/odata.net/test/FunctionalTests/Tests/Data/Northwind/Northwind.csdl"
    case tripPinOASIS = "oasis-tcs/odata-openapi/examples/TripPin.xml"
    case northwindV4OASIS = "oasis-tcs/odata-openapi/examples/Northwind.xml"
    case northwindV3 = "oasis-tcs/odata-openapi/examples/Northwind-V3.xml"
    case odataDemoV2 = "oasis-tcs/odata-openapi/examples/odata-rw-v2.xml"
    case rmtSampleFlight = "SAP/openui5/src/sap.ui.core/test/sap/ui/core/qunit/mockserver/testdata/rmtsampleflight/metadata.xml"

    /// Tests/Fixtures, found from this source file's location.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Metadata
        .deletingLastPathComponent()  // ODataProtocolTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures")

    static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }

    var url: URL { Self.url(rawValue) }
    func bytes() throws -> [UInt8] { try Self.bytes(rawValue) }

    static let xxePath = "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/xxe.xml"
}
