/// The pages of a collection as an `AsyncSequence` of responses: the first request, then
/// one request per next link the service sends, each when the loop asks for it (so a slow
/// consumer never holds more than one page). Cancelling the task ends the loop with
/// `.cancelled`; breaking out of it sends nothing more.
///
/// ```swift
/// for try await page in store.pages(of: "Products") {
///     for product in try page.decode([Product].self) { ... }
/// }
/// ```
public struct ResponsePages: AsyncSequence, Sendable {
    public typealias Element = Response
    public typealias Failure = ODataStoreError

    let store: Store
    let first: ODataRequest

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, next: first)
    }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let store: Store
        var next: ODataRequest?

        public mutating func next() async throws(ODataStoreError) -> Response? {
            guard var request = next else { return nil }
            request.paging = .none
            next = nil
            let response = try await store.send(request)
            if let link = response.nextLink {
                var following = request
                following.path = ResourcePath(link)
                following.body = nil
                next = following
            }
            return response
        }
    }
}
