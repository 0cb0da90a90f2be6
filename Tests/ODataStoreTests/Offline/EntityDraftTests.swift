import Testing
@testable import ODataStore

/// `EntityDraft`, the state both paths of `EntityWriter` start each entity from: a new draft
/// changes nothing but the cells it is given, and the members the schema does not know become
/// the extra column's JSON object (complete after each member). (The two paths' use of it: `SpanWriterTests`.)
@Suite("Offline: the entity draft")
struct EntityDraftTests {
    @Test func startsEmpty() {
        let d = EntityDraft(cells: [nil, nil, nil])
        #expect(d.cells.count == 3 && d.cells.allSatisfy { $0 == nil })
        guard case .null = d.etag, case .null = d.type else {
            Issue.record("a new draft has an ETag, a type or extra members")
            return
        }
        #expect(d.extra.isEmpty && d.navigations.isEmpty && d.incomplete.isEmpty && !d.removed && d.odataID == nil)
    }

    @Test func extraMembersMakeOneObject() {
        var d = EntityDraft(cells: [])
        let key1 = Array("@odata.id".utf8), value1 = Array(#""Products(1)""#.utf8)
        let key2 = Array(#"Dyn\"amic"#.utf8), value2 = Array(#"{"a":[1,2]}"#.utf8)
        key1.withUnsafeBufferPointer { k in value1.withUnsafeBufferPointer { v in d.appendExtra(key: k, value: v) } }
        #expect(String(decoding: d.extra, as: UTF8.self) == #"{"@odata.id":"Products(1)"}"#)
        key2.withUnsafeBufferPointer { k in value2.withUnsafeBufferPointer { v in d.appendExtra(key: k, value: v) } }
        #expect(String(decoding: d.extra, as: UTF8.self) == #"{"@odata.id":"Products(1)","Dyn\"amic":{"a":[1,2]}}"#)
    }
}
