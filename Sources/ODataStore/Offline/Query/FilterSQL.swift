/// Translates typed `$filter` and `$orderby` expressions (as `ResourceRequestChecker` returns
/// them) into SQL over the offline store's tables. Pure: no I/O; every literal is bound as a
/// parameter through `SQLParameters`, never pasted into the SQL text.
///
/// Semantics are OData's, not SQLite's defaults (see docs/offline.md): comparisons never
/// yield NULL where OData defines true/false, strings compare case-sensitively by code
/// point, decimals and instants compare through the store's collations, and what cannot be
/// evaluated locally fails with `.unsupported` naming the construct.
struct FilterSQL {
    let schema: StoreSchema
    var aliases: SQLAliases

    init(schema: StoreSchema, aliases: SQLAliases) {
        self.schema = schema
        self.aliases = aliases
    }

    /// A boolean SQL condition (0 or 1, never NULL) equivalent to the `$filter` predicate `e`
    /// evaluated on the row `scope` names.
    mutating func condition(_ e: FilterExpression, in scope: SQLScope, _ parameters: inout SQLParameters) throws(ODataStoreError) -> String {
        throw ODataStoreError(.unsupported, "$filter cannot be evaluated offline yet")
    }

    /// One `$orderby` term: a SQL value expression with the collation its type sorts by
    /// (`... COLLATE ODS_DECIMAL`), without the direction.
    mutating func orderTerm(_ e: FilterExpression, in scope: SQLScope, _ parameters: inout SQLParameters) throws(ODataStoreError) -> String {
        throw ODataStoreError(.unsupported, "$orderby cannot be evaluated offline yet")
    }
}
