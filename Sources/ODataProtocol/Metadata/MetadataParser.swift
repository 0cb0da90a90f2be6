/// Reads an OData `$metadata` document (CSDL XML, or CSDL JSON) into a `ServiceModel`.
///
/// ```swift
/// let model = try MetadataParser.parse(bytes)          // throws(MetadataError)
/// let type = model.entityType(ofSet: "Products")
/// ```
///
/// ## What is read
/// - **V2** (`edmx:Edmx Version="1.0"`, namespace `http://schemas.microsoft.com/ado/2007/06/edmx`)
///   with `m:DataServiceVersion` 1.0, 2.0 or 3.0: entity and complex types, keys, facets
///   (`MaxLength` incl. `Max`, `Precision`, `Scale`, `Nullable`, `DefaultValue`),
///   `ConcurrencyMode="Fixed"`, `m:HasStream`, `sap:*` annotations (types, properties,
///   sets, function imports), associations resolved into navigation properties (target
///   type, multiplicity, referential constraints, partner), association sets turned into
///   V4-style navigation bindings on the sets, function imports (`m:HttpMethod`,
///   `ReturnType`, `EntitySet`, parameters), several schemas, several containers (see
///   `CSDLLoader+Container.swift` for which one is the default).
/// - **V3** documents (`DataServiceVersion="3.0"`) load into the same model with
///   `version == .v2` and `declaredVersion == "3.0"`: their CSDL is the V2 CSDL plus a few
///   additions, and a V3 service still speaks the V2 wire formats this library uses
///   (verbose JSON with `DataServiceVersion`/`MaxDataServiceVersion` headers). V3-only
///   constructs that are also V4 constructs (enum types, ...) are read as for V4.
/// - **V4** (`edmx:Edmx Version="4.0"`/`"4.01"`, OASIS namespaces): namespaces and aliases
///   (resolved everywhere, also inside `Collection(...)` and binding paths; aliases of
///   `edmx:Include`s too), keys (incl. aliased key paths), base types, abstract and open
///   types, complex types, enum types (`IsFlags`, implicit values), type definitions,
///   entity sets, singletons, navigation property bindings, navigation properties (`Partner`,
///   `ReferentialConstraint`, `Nullable`, `ContainsTarget`, `Collection(...)`), functions and
///   actions (bound/unbound, overloads), function/action imports resolved to their
///   operation, `HasStream`, facets.
/// - **CSDL JSON** (OData 4.01, `$metadata?$format=json`): recognised by its leading `{`,
///   translated element by element into the equivalent EDMX tree (`CSDLJSONConverter`), so
///   it gets exactly the XML semantics, checks and warnings; JSON defaults (`$Nullable`
///   false, `$Type` `Edm.String`) are applied; JSON syntax errors are `.notWellFormed`.
/// - Skipped without error: `Annotations`/`Annotation` blocks (so V4's
///   `Core.OptimisticConcurrency` is not seen: `ServiceModel.hasETag` reflects V2
///   `ConcurrencyMode` only), `Term`s, `edmx:Reference` content (only the included
///   namespaces and aliases are kept), `Using`, `EntityContainer/@Extends`, `OnDelete`,
///   `m:FC_*`, and any element or attribute in a foreign namespace.
///
/// ## Documents outside the usual shapes (decided, and asserted by the tests)
/// - **Bare CSDL `Schema` root** (no EDMX envelope, e.g. odata.net's `Northwind.csdl`, which
///   also starts with a UTF-8 BOM): accepted as one schema. The version comes from the
///   schema's namespace: Microsoft CSDL namespaces give `.v2`, the OASIS one `.v4`;
///   `declaredVersion` is nil.
/// - **Hybrid documents** (SAP's, as in Olingo's `$metadata.xml`: V4 constructs such as
///   `EnumType`, `TypeDefinition`, `Action`/`Function`, `ActionImport`, `Singleton` and
///   V4-style navigation properties inside an EDMX 1.0 envelope with DataServiceVersion
///   2.0): the envelope decides the version (`.v2`, "2.0"), and every construct of either
///   version is loaded as is. One `versionMismatch` warning per kind of foreign construct
///   says so; `Options.strict` rejects such documents instead.
/// - The unqualified type names some SAP/pyodata documents use (`EntityType="Employee"`)
///   resolve to the schema's own namespace, else to the only type of that name.
///
/// ## Errors
/// Thrown (`MetadataError`): not well-formed XML/JSON or a DTD (`.notWellFormed`, with
/// line/column; DTDs are refused by the XML layer, so external entities are never
/// resolved), a root that is neither `edmx:Edmx` nor a CSDL `Schema` or an `edmx:Edmx`
/// without `edmx:DataServices` (`.notMetadata`), an unknown EDMX `Version` or
/// `DataServiceVersion` (`.unsupportedVersion`), a type with more than
/// `ServiceModel.maxInheritanceDepth` (64) base types (`.invalidElement`, naming the type and
/// the limit). Everything else is tolerated and reported
/// in `ServiceModel.warnings`: dangling type/association/set/operation references,
/// elements missing required attributes (skipped), duplicate names (first wins),
/// constructs of the other version. With `Options(strict: true)` the first such problem
/// is thrown instead.
///
/// Threading: `parse` is a pure function, safe to call from any thread; the model is
/// `Sendable`.
public enum MetadataParser {
    public struct Options: Sendable, Hashable {
        /// Throw the first tolerated problem (see `ServiceModel.warnings`) instead of
        /// collecting it.
        public var strict: Bool

        public init(strict: Bool = false) { self.strict = strict }
    }

    /// Parses a `$metadata` document from its bytes: CSDL XML (any encoding libxml2 detects;
    /// a BOM is fine) or, when the first significant character is `{`, CSDL JSON (UTF-8).
    public static func parse(_ bytes: some Collection<UInt8>, options: Options = Options()) throws(MetadataError) -> ServiceModel {
        if CSDLJSONReader.looksLikeJSON(bytes) {
            var reader = CSDLJSONReader(Array(bytes))
            let json = try reader.parseDocument()
            return try parse(CSDLJSONConverter.document(json), options: options)
        }
        let document: XMLDocument
        do {
            document = try XMLDocument.parse(bytes)
        } catch {
            throw MetadataError(error)
        }
        return try parse(document, options: options)
    }

    /// Parses a `$metadata` document given as a string.
    public static func parse(_ string: String, options: Options = Options()) throws(MetadataError) -> ServiceModel {
        try parse(Array(string.utf8), options: options)
    }

    /// Builds the model from an already parsed XML document.
    public static func parse(_ document: XMLDocument, options: Options = Options()) throws(MetadataError) -> ServiceModel {
        try CSDLLoader(strict: options.strict).load(document)
    }
}
