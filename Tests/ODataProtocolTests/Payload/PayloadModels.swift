import Foundation
@testable import ODataProtocol

/// The real $metadata documents the payload fixtures belong to, parsed once.
enum PayloadModels {
    static let refScenario: ServiceModel = load(PayloadFixtures.olingo2 + "refScenario.edmx")
    static let flight: ServiceModel = load(PayloadFixtures.flight + "metadata.xml")
    static let tripPin: ServiceModel = load(PayloadFixtures.olingo4 + "metadata_TripInService.xml")

    static func load(_ path: String) -> ServiceModel {
        do { return try MetadataParser.parse(PayloadFixtures.bytes(path)) } catch {
            fatalError("cannot load \(path): \(error)")  // test fixture setup only
        }
    }
}

extension DecodedPayload {
    /// The canonical JSON parsed back (tests inspect values through it).
    var value: JSONValue { (try? JSONValue.parse(json)) ?? .null }
}
