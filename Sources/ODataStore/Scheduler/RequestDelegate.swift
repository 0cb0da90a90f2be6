/// Receives a request's progress. All methods have empty defaults.
///
/// Threading: called through the store's dispatch mode (its callback thread, or the thread
/// that calls `Store.dispatch`), one callback at a time per store, in order per request:
/// `requestStarted`, `request(_:didReceive:)`, then exactly one of `request(_:didFailWith:response:)`
/// and `requestFinished`. The store holds the request alive during every callback.
public protocol RequestDelegate: AnyObject, Sendable {
    func requestStarted(_ request: Request)
    /// The service answered with success (once; all pages when paging is `.follow`).
    func request(_ request: Request, didReceive response: Response)
    /// Terminal: failed or cancelled (`error.code == .cancelled`). `response` is the service's
    /// error response when there was one.
    func request(_ request: Request, didFailWith error: ODataStoreError, response: Response?)
    /// Terminal: succeeded.
    func requestFinished(_ request: Request)
}

public extension RequestDelegate {
    func requestStarted(_ request: Request) {}
    func request(_ request: Request, didReceive response: Response) {}
    func request(_ request: Request, didFailWith error: ODataStoreError, response: Response?) {}
    func requestFinished(_ request: Request) {}
}

/// The one-callback form: called last, once, with the outcome. On failure the second
/// value is the service's error response, if any.
public typealias RequestCompletion = @Sendable (Request, Result<Response, RequestFailure>) -> Void

/// A failed outcome: the error and, when the service answered, its response.
public struct RequestFailure: Error, Sendable {
    public var error: ODataStoreError
    public var response: Response?
    public init(error: ODataStoreError, response: Response? = nil) {
        self.error = error
        self.response = response
    }
}
