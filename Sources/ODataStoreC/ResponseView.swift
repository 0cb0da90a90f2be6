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
        /// The canonical JSON's bytes and where its entities are, found on first use.
        var text: CanonicalJSONText?
        var entityRanges: [Range<Int>]?
        /// Views made so far: the first entity's, then the others by index.
        var firstEntity: EntityView?
        var otherEntities: [EntityView?] = []
        /// ods_entity_json and ods_entity_get_string strings of the entities, by entity index.
        var entityJSON: [Int: UnsafePointer<CChar>?] = [:]
        var entityTexts: [EntityTextKey: UnsafePointer<CChar>?] = [:]

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

    struct EntityTextKey: Hashable {
        var entity: Int
        var property: String
    }

    init(_ response: Response) {
        self.response = response
    }

    var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

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

    /// The entities of the canonical JSON, located (not parsed) on first use.
    var entityCount: Int {
        cache.withLock { c in entityRanges(&c).count }
    }

    /// The view of entity `index`, made on first use; nil when out of range.
    func entity(at index: Int) -> EntityView? {
        cache.withLock { c in
            let ranges = entityRanges(&c)
            guard index >= 0, index < ranges.count, let text = c.text else { return nil }
            if index == 0 {
                if let view = c.firstEntity { return view }
                let view = EntityView(owner: self, index: 0, text: text, range: ranges[0])
                c.firstEntity = view
                return view
            }
            if c.otherEntities.isEmpty { c.otherEntities = Array(repeating: nil, count: ranges.count) }
            if let view = c.otherEntities[index] { return view }
            let view = EntityView(owner: self, index: index, text: text, range: ranges[index])
            c.otherEntities[index] = view
            return view
        }
    }

    /// Runs `body` with the cache locked (for the entity views of this response).
    func withCache<R>(_ body: (inout Cache) -> R) -> R {
        cache.withLock { body(&$0) }
    }

    private func entityRanges(_ c: inout Cache) -> [Range<Int>] {
        if let ranges = c.entityRanges { return ranges }
        var ranges: [Range<Int>] = []
        if response.entityCount > 0, !response.json.isEmpty {
            let text = CanonicalJSONText(response.json)
            // The decoder's ranges when it recorded them (a single entity), else a scan.
            if let known = response.entityRanges, text.areEntities(known) {
                ranges = known
            } else {
                ranges = text.entityRanges()
            }
            c.text = text
        }
        c.entityRanges = ranges
        return ranges
    }
}
