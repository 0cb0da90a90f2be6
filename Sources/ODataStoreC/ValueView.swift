import CODataStoreABI
import Glibc
import ODataStore

/// The `ods_entity` and `ods_value` handles: one value of a response's canonical JSON (an
/// entity is an object value, so both handle types point at this class and convert freely).
/// BORROWED from its `ResponseView`, which keeps every view it made until it is released.
///
/// The navigation and typing are the protocol layer's (`CanonicalDocument`); this class only
/// bridges: it keeps the C strings it hands out (in the response view's locked cache) and
/// turns results into status codes.
///
/// Threading: any thread while the response is alive (the JSON is immutable; the strings and
/// child views live in the response view's locked cache).
final class ValueView: Sendable {
    /// The response view that owns this view (and outlives it: it holds its views).
    unowned let owner: ResponseView
    let document: CanonicalDocument
    /// The value's bytes in the document.
    let range: Range<Int>
    let kind: CanonicalDocument.Kind

    init(owner: ResponseView, document: CanonicalDocument, range: Range<Int>) {
        self.owner = owner
        self.document = document
        self.range = range
        self.kind = document.kind(of: range)
    }

    var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ p: OpaquePointer?) -> ValueView? {
        guard let p else { return nil }
        return Unmanaged<ValueView>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    /// `ods_value_get_type` / `ods_entity_value_type` numbering.
    var typeCode: Int32 { ref.typeCode }

    /// The value's JSON text (compact, as in the response).
    var json: UnsafePointer<CChar>? {
        owner.withCache { c in
            if let cached = c.valueJSON[range.lowerBound] { return cached }
            let p = c.keep(document.text(range))
            c.valueJSON[range.lowerBound] = p
            return p
        }
    }

    // MARK: - Children

    private func memberList(_ c: inout ResponseView.Cache) -> [(name: String, value: Range<Int>)] {
        if let m = c.members[range.lowerBound] { return m }
        let m = kind == .object ? document.members(of: range) : []
        c.members[range.lowerBound] = m
        return m
    }

    private func elementList(_ c: inout ResponseView.Cache) -> [Range<Int>] {
        if let e = c.elements[range.lowerBound] { return e }
        let e = kind == .array ? document.elements(of: range) : []
        c.elements[range.lowerBound] = e
        return e
    }

    /// Elements of an array, members of an object, 0 otherwise.
    var count: Int {
        owner.withCache { c in
            switch kind {
            case .array: elementList(&c).count
            case .object: memberList(&c).count
            default: 0
            }
        }
    }

    /// The member named `name` of an object (nil when absent or not an object).
    func member(_ name: String) -> ValueView? {
        guard kind == .object else { return nil }
        // One scan for the name, without listing every member (the common single lookup).
        guard let r = document.member(name, of: range) else { return nil }
        return owner.withCache { c in owner.view(&c, r) }
    }

    /// Element `index` of an array.
    func element(_ index: Int) -> ValueView? {
        guard kind == .array, index >= 0 else { return nil }
        return owner.withCache { c in
            let e = elementList(&c)
            return index < e.count ? owner.view(&c, e[index]) : nil
        }
    }

    /// Member `index` of an object: its name (a C string kept with the response) and value.
    func member(at index: Int) -> (name: UnsafePointer<CChar>?, value: ValueView)? {
        guard kind == .object, index >= 0 else { return nil }
        return owner.withCache { c in
            let m = memberList(&c)
            guard index < m.count else { return nil }
            let (name, r) = m[index]
            let namePointer: UnsafePointer<CChar>?
            if let cached = c.memberNames[r.lowerBound] {
                namePointer = cached
            } else {
                namePointer = c.keep(name)
                c.memberNames[r.lowerBound] = namePointer
            }
            return (namePointer, owner.view(&c, r))
        }
    }

    // MARK: - Scalars (see ValueRef)

    var ref: ValueRef { ValueRef(owner: owner, document: document, range: range, kind: kind) }
    var text: UnsafePointer<CChar>? { ref.text }
    func int64(_ what: String) throws(ODataStoreError) -> Int64 { try ref.int64(what) }
    func double(_ what: String) throws(ODataStoreError) -> Double { try ref.double(what) }
    func bool(_ what: String) throws(ODataStoreError) -> Bool { try ref.bool(what) }
    func string(_ what: String) throws(ODataStoreError) -> UnsafePointer<CChar>? { try ref.string(what) }

    /// A member's value without making a view of it (the typed entity getters: most read a
    /// scalar, and a view per property read cost an allocation each).
    func memberRef(_ name: String) -> ValueRef? {
        guard kind == .object, let r = document.member(name, of: range) else { return nil }
        return ValueRef(owner: owner, document: document, range: r, kind: document.kind(of: r))
    }
}

/// One value of a response read as a scalar, without a view object: the typed getters'
/// rules (null is ODS_ENULL, another type ODS_ETYPE) and the C strings they hand out (kept in
/// the response view's cache, by the value's first byte).
struct ValueRef {
    unowned let owner: ResponseView
    let document: CanonicalDocument
    let range: Range<Int>
    let kind: CanonicalDocument.Kind

    var typeCode: Int32 {
        switch kind {
        case .null: 1
        case .bool: 2
        case .number: 3
        case .string: 4
        case .object: 5
        case .array: 6
        }
    }


    /// The value as text: strings unescaped, numbers as spelled, booleans as true/false,
    /// objects and arrays as their JSON; nil pointer for JSON null.
    var text: UnsafePointer<CChar>? {
        owner.withCache { c in
            if let cached = c.valueTexts[range.lowerBound] { return cached }
            let p: UnsafePointer<CChar>?
            switch kind {
            case .null: p = nil
            case .bool: p = c.keep(document.bool(range) == true ? "true" : "false")
            case .number, .string: p = document.scalarText(range).flatMap { c.keep($0) }
            case .array, .object: p = c.keep(document.text(range))
            }
            c.valueTexts[range.lowerBound] = p
            return p
        }
    }

    /// The status rule of every typed getter: null is ODS_ENULL, another type ODS_ETYPE.
    func int64(_ what: String) throws(ODataStoreError) -> Int64 {
        switch document.int64(range) {
        case .success(let v): return v
        case .failure(.null): throw ODataStoreError(.null, "\(what) is null")
        case .failure(.type): throw ODataStoreError(.type, "\(what) (\(preview)) is not an integer in the Int64 range")
        }
    }

    func double(_ what: String) throws(ODataStoreError) -> Double {
        switch document.double(range) {
        case .success(let v): return v
        case .failure(.null): throw ODataStoreError(.null, "\(what) is null")
        case .failure(.type): throw ODataStoreError(.type, "\(what) (\(preview)) is not a number")
        }
    }

    func bool(_ what: String) throws(ODataStoreError) -> Bool {
        switch kind {
        case .bool: return document.bool(range) == true
        case .null: throw ODataStoreError(.null, "\(what) is null")
        default: throw ODataStoreError(.type, "\(what) (\(preview)) is not a boolean")
        }
    }

    func string(_ what: String) throws(ODataStoreError) -> UnsafePointer<CChar>? {
        if kind == .null { throw ODataStoreError(.null, "\(what) is null") }
        guard let p = text else { throw ODataStoreError(.noMemory, "out of memory") }
        return p
    }

    /// The start of the value's text, for messages.
    private var preview: String {
        let t = document.text(range)
        return t.utf8.count <= 40 ? t : String(t.prefix(37)) + "..."
    }
}
