import CODataStoreABI
import Glibc
import ODataStore

/// The `ods_response` handed to callbacks: a `Response` plus the C strings and entity views
/// made from it on demand. Everything it hands out is BORROWED until the view is released,
/// which happens when the callback returns.
///
/// Threading: the accessors may be called from any thread while the callback runs. One lock
/// guards the strings and views of the response and of its entities.
final class ResponseView: Sendable {
    let response: Response
    private let cache = Locked(Cache())

    struct Cache: @unchecked Sendable {
        /// Made on the first string handed out (most callbacks hand out none).
        private var strings: BorrowedStrings?
        var json: UnsafePointer<CChar>?
        var body: UnsafePointer<CChar>?
        var etag: UnsafePointer<CChar>??
        var nextLink: UnsafePointer<CChar>??
        var headers: [(name: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?)]?
        /// The canonical JSON as a document, where its entities are and the root value's
        /// range, found on first use.
        var document: CanonicalDocument?
        var entityRanges: [Range<Int>]?
        var rootRange: Range<Int>??
        /// Value views made so far (entities, members, elements), by their first byte.
        var views: [Int: ValueView] = [:]
        /// C strings of values, by the value's first byte: its JSON text, its text (get_string),
        /// and the name of the member whose value it is.
        var valueJSON: [Int: UnsafePointer<CChar>?] = [:]
        var valueTexts: [Int: UnsafePointer<CChar>?] = [:]
        var memberNames: [Int: UnsafePointer<CChar>?] = [:]
        /// Members and elements of containers, by the container's first byte.
        var members: [Int: [(name: String, value: Range<Int>)]] = [:]
        var elements: [Int: [Range<Int>]] = [:]

        /// A NUL-terminated copy that lives as long as the view.
        mutating func keep(_ s: String) -> UnsafePointer<CChar>? {
            if strings == nil { strings = BorrowedStrings() }
            return strings?.keep(s)
        }

        mutating func keep(bytes: [UInt8]) -> UnsafePointer<CChar>? {
            if strings == nil { strings = BorrowedStrings() }
            return strings?.keep(bytes: bytes)
        }
    }

    init(_ response: Response) {
        self.response = response
    }

    var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// A new reference for the app (OWNED: ods_response_free releases it).
    var retainedPointer: OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

    static func from(_ p: OpaquePointer?) -> ResponseView? {
        guard let p else { return nil }
        return Unmanaged<ResponseView>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    var json: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.json == nil { c.json = c.keep(response.json) }
            return c.json
        }
    }

    var body: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.body == nil { c.body = c.keep(bytes: response.body) }
            return c.body
        }
    }

    var etag: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.etag == nil { c.etag = .some(response.etag.flatMap { c.keep($0) }) }
            return c.etag ?? nil
        }
    }

    var nextLink: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.nextLink == nil { c.nextLink = .some(response.nextLink.flatMap { c.keep($0) }) }
            return c.nextLink ?? nil
        }
    }

    func header(at index: Int) -> (name: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?)? {
        cache.withLock { c in
            if c.headers == nil {
                c.headers = response.headerFields.pairs.map { (c.keep($0.name), c.keep($0.value)) }
            }
            guard let headers = c.headers, index >= 0, index < headers.count else { return nil }
            return headers[index]
        }
    }

    func header(named name: String) -> UnsafePointer<CChar>? {
        guard let index = response.headerFields.index(named: name) else { return nil }
        return header(at: index)?.value
    }

    // MARK: - Values (ods_entity, ods_value)

    /// The canonical JSON as a navigable document, made on first use.
    private func document(_ c: inout Cache) -> CanonicalDocument {
        if let d = c.document { return d }
        let d = CanonicalDocument(response.json)
        c.document = d
        return d
    }

    /// The entities of the canonical JSON, located (not parsed) on first use.
    var entityCount: Int {
        cache.withLock { c in entityRanges(&c).count }
    }

    /// The view of entity `index`, made on first use; nil when out of range.
    func entity(at index: Int) -> ValueView? {
        cache.withLock { c in
            let ranges = entityRanges(&c)
            guard index >= 0, index < ranges.count else { return nil }
            return view(&c, ranges[index])
        }
    }

    /// The whole result as a value (nil when the response has no JSON, e.g. a 204).
    var rootValue: ValueView? {
        cache.withLock { c in
            if c.rootRange == nil { c.rootRange = .some(document(&c).root) }
            guard let root = c.rootRange ?? nil else { return nil }
            return view(&c, root)
        }
    }

    /// The one view of the value at `range` (views are kept until the response is released,
    /// so a pointer handed out stays the same and valid). Lock held.
    func view(_ c: inout Cache, _ range: Range<Int>) -> ValueView {
        if let v = c.views[range.lowerBound] { return v }
        let v = ValueView(owner: self, document: document(&c), range: range)
        c.views[range.lowerBound] = v
        return v
    }

    /// Runs `body` with the cache locked (for the value views of this response).
    func withCache<R>(_ body: (inout Cache) -> R) -> R {
        cache.withLock { body(&$0) }
    }

    private func entityRanges(_ c: inout Cache) -> [Range<Int>] {
        if let ranges = c.entityRanges { return ranges }
        var ranges: [Range<Int>] = []
        if response.entityCount > 0, !response.json.isEmpty {
            // The decoder's ranges when it recorded them (a single entity), else a scan.
            ranges = document(&c).entityRanges(known: response.entityRanges)
        }
        c.entityRanges = ranges
        return ranges
    }
}
