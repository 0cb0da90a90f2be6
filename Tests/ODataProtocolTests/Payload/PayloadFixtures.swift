import Foundation

/// Locates and reads the third-party fixtures under Tests/Fixtures (upstream layout).
enum PayloadFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static let olingo2 = "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/"
    static let olingo2fit = "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/"
    static let olingo4 = "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/"
    static let olingo4fit = "apache/olingo-odata4/fit/"
    static let odatanetBatch = "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/"
    static let flight = "SAP/openui5/src/sap.ui.core/test/sap/ui/core/qunit/mockserver/testdata/rmtsampleflight/"

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relative)))
    }

    static func text(_ relative: String) throws -> String {
        String(decoding: try bytes(relative), as: UTF8.self)
    }

    /// All fixture files under `folder` whose names end with one of `extensions`, sorted.
    static func files(under folder: String = "", extensions: [String]) -> [String] {
        let base = url(folder)
        guard let e = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var out: [String] = []
        for case let u as URL in e where extensions.contains(where: { u.lastPathComponent.hasSuffix($0) }) {
            out.append(String(u.path.dropFirst(root.path.count + 1)))
        }
        return out.sorted()
    }
}
