import CODataStoreABI
import Glibc
import ODataStore

/// The `ods_response` handed to callbacks: a `Response` plus the C strings and entity views
/// made from it on demand. Everything it hands out is BORROWED until the view is released,
/// which happens when the callback returns.
///
/// Threading: the accessors may be called from any thread while the callback runs.
final class ResponseView: Sendable {
    let response: Response
    private let cache = Locked(Cache())

    private struct Cache: @unchecked Sendable {
        let strings = BorrowedStrings()
        var json: UnsafePointer<CChar>?
        var body: UnsafePointer<CChar>?
        var etag: UnsafePointer<CChar>??
        var nextLink: UnsafePointer<CChar>??
        var headers: [(name: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?)]?
        /// The canonical JSON's bytes and where its entities are, found on first use.
        var text: CanonicalJSONText?
        var entityRanges: [Range<Int>]?
        /// Views made so far, by index.
        var entities: [EntityView?] = []
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
            if c.json == nil { c.json = c.strings.keep(response.json) }
            return c.json
        }
    }

    var body: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.body == nil { c.body = c.strings.keep(bytes: response.body) }
            return c.body
        }
    }

    var etag: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.etag == nil { c.etag = .some(response.etag.flatMap { c.strings.keep($0) }) }
            return c.etag ?? nil
        }
    }

    var nextLink: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.nextLink == nil { c.nextLink = .some(response.nextLink.flatMap { c.strings.keep($0) }) }
            return c.nextLink ?? nil
        }
    }

    func header(at index: Int) -> (name: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?)? {
        cache.withLock { c in
            if c.headers == nil {
                c.headers = response.headerFields.pairs.map { (c.strings.keep($0.name), c.strings.keep($0.value)) }
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
            if c.entities.isEmpty { c.entities = Array(repeating: nil, count: ranges.count) }
            if let view = c.entities[index] { return view }
            let view = EntityView(text: text, range: ranges[index])
            c.entities[index] = view
            return view
        }
    }

    private func entityRanges(_ c: inout Cache) -> [Range<Int>] {
        if let ranges = c.entityRanges { return ranges }
        var ranges: [Range<Int>] = []
        if response.entityCount > 0, !response.json.isEmpty {
            let text = CanonicalJSONText(response.json)
            ranges = text.entityRanges()
            c.text = text
        }
        c.entityRanges = ranges
        return ranges
    }
}
