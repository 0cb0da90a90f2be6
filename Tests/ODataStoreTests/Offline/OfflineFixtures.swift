import Foundation
@testable import ODataProtocol
@testable import ODataStore

/// Models and in-memory databases for the offline store's unit tests.
enum OfflineFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relativePath)))
    }

    static func model(_ relativePath: String) throws -> ServiceModel {
        try MetadataParser.parse(bytes(relativePath))
    }

    /// The odatapy test service's model (Tests/servers/v4_service.py).
    static func v4() throws -> ServiceModel { try model("servers/v4_metadata.xml") }
    /// The pyslet test service's model (Tests/servers/v2_metadata.xml).
    static func v2() throws -> ServiceModel { try model("servers/v2_metadata.xml") }
    /// SAP's flight sample (RMTSAMPLEFLIGHT).
    static func flight() throws -> ServiceModel {
        try model("SAP/openui5/src/sap.ui.core/test/sap/ui/core/qunit/mockserver/testdata/rmtsampleflight/metadata.xml")
    }

    /// An in-memory SQLite connection with the store's functions and `schema`'s tables.
    static func database(_ schema: StoreSchema) throws -> SQLiteConnection {
        let c = try SQLiteConnection(path: ":memory:", create: true)
        try SQLFunctions.register(on: c)
        for statement in schema.ddl { try c.execute(statement) }
        return c
    }
}
