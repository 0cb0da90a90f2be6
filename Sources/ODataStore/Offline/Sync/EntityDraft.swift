/// One entity while `EntityWriter` reads its members, by either path (the scanning path in
/// `EntityWriter.swift`, the spans path in `EntityWriter+Spans.swift`): the columns' values and
/// what the entity's control information and other members say, handed whole to
/// `EntityWriter.write`, which upserts the row. Both paths start every entity from the same
/// state (`init(cells:)`) and fill it by the same rules.
///
/// A value of one `entity` call on the database thread; `.raw` cells and `extra` refer to the
/// page the entity is read from.
struct EntityDraft {
    /// One value per column of the entity's table (`EntityTable.columns`); nil: the page does
    /// not carry the member, so the upsert leaves that column alone.
    var cells: [CellValue?]
    /// `@odata.etag`, `.null` when the entity has none.
    var etag: CellValue = .null
    /// The entity's type when it is not the table's own (`@odata.type` of a derived type), else `.null`.
    var type: CellValue = .null
    /// The members the schema does not know (control information kept, dynamic properties),
    /// as a JSON object; empty when there are none.
    var extra: [UInt8] = []
    /// Each expanded navigation: its plan item, the row ids of its entities, whether the
    /// expansion is complete (its links are then replaced).
    var navigations: [(item: ExpandPlan.Item, children: [Int64], complete: Bool)] = []
    /// Navigations whose expansion has a next link (`Name@odata.nextLink`): partial.
    var incomplete: Set<String> = []
    /// A removed-entity entry of a delta page (`@odata.removed`): noted, not written.
    var removed = false
    /// `@odata.id`, when the entity has one.
    var odataID: String?

    /// A draft with every cell unset; `cells` must hold one nil per column.
    @inline(__always)
    init(cells: [CellValue?]) {
        self.cells = cells
    }

    /// Adds `"key":value` (both as they are written in the page) to `extra`.
    mutating func appendExtra(key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if extra.isEmpty { extra.append(UInt8(ascii: "{")) } else { extra[extra.count - 1] = UInt8(ascii: ",") }
        extra.append(UInt8(ascii: "\""))
        extra.append(contentsOf: key)
        extra.append(UInt8(ascii: "\""))
        extra.append(UInt8(ascii: ":"))
        extra.append(contentsOf: value)
        extra.append(UInt8(ascii: "}"))
    }
}
