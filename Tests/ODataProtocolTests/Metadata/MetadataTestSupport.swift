@testable import ODataProtocol

/// Shared helpers for the metadata tests.
///
/// The expected numbers in these tests were counted from the documents themselves with
/// python3's xml.etree, independently of this library: elements by local name
/// (`EntityType`, `ComplexType`, `EntitySet` + `Singleton`, `NavigationProperty`,
/// `FunctionImport` + `ActionImport`, `Member`, ...), `PropertyRef`s per `Key`, and V2
/// navigation targets by looking up the association `End` whose `Role` is the `ToRole`.
extension ServiceModel {
    var entityTypeCount: Int { types.values.filter { $0.kind == .entity }.count }
    var complexTypeCount: Int { types.values.filter { $0.kind == .complex }.count }
    var navigationPropertyCount: Int { types.values.reduce(0) { $0 + $1.navigationProperties.count } }
    var bindingCount: Int { entitySets.values.reduce(0) { $0 + $1.navigationBindings.count } }
    var operationCount: Int { operations.values.reduce(0) { $0 + $1.count } }

    /// `type` must exist (the tests use names taken from the documents).
    func type(_ qualifiedName: String) -> StructuredType? { structuredType(qualifiedName) }

    func nav(_ type: String, _ name: String) -> NavigationProperty? {
        structuredType(type).flatMap { navigationProperty(name, of: $0) }
    }

    func prop(_ type: String, _ name: String) -> StructuralProperty? {
        structuredType(type).flatMap { property(name, of: $0) }
    }

    func warnings(_ kind: MetadataError.Kind) -> [MetadataError] { warnings.filter { $0.kind == kind } }
}

/// Constraints as comparable strings "property->referencedProperty", sorted.
func constraintStrings(_ n: NavigationProperty?) -> [String] {
    (n?.referentialConstraints ?? []).map { "\($0.property)->\($0.referencedProperty)" }.sorted()
}
