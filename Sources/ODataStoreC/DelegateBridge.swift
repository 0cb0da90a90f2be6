import CODataStoreABI
import ODataStore

/// Calls an app's `ods_request_delegate` (a copied struct of C function pointers) for a
/// request. The context passed is the request's own (`ods_request_set_context`).
///
/// Threading: called by the store's callback delivery, one callback at a time.
final class DelegateBridge: RequestDelegate, @unchecked Sendable {
    private let delegate: ods_request_delegate

    init(_ delegate: ods_request_delegate) {
        self.delegate = delegate
    }

    func requestStarted(_ request: Request) {
        guard let started = delegate.started else { return }
        started(Handle.pointer(request), request.cContext.context.pointer)
    }

    func request(_ request: Request, didReceive response: Response) {
        guard let callback = delegate.response else { return }
        let view = ResponseView(response)
        withExtendedLifetime(view) {
            callback(Handle.pointer(request), view.pointer, request.cContext.context.pointer)
        }
    }

    func request(_ request: Request, didFailWith error: ODataStoreError, response: Response?) {
        guard let failed = delegate.failed else { return }
        let record = ErrorRecord(error)
        let view = response.map(ResponseView.init)
        withExtendedLifetime((record, view)) {
            failed(Handle.pointer(request), record.record, view?.pointer, request.cContext.context.pointer)
        }
    }

    func requestFinished(_ request: Request) {
        guard let finished = delegate.finished else { return }
        finished(Handle.pointer(request), request.cContext.context.pointer)
    }

    /// Reads a delegate struct from C, checking its version.
    static func read(_ p: UnsafePointer<ods_request_delegate>?) throws(ODataStoreError) -> DelegateBridge? {
        guard let p else { return nil }
        let version = p.pointee.version
        guard version >= 1 else {
            throw ODataStoreError(.invalidArgument, "ods_request_delegate.version is 0; initialise it with ODS_REQUEST_DELEGATE_INIT")
        }
        guard version <= UInt32(ODS_REQUEST_DELEGATE_VERSION) else {
            throw ODataStoreError(.invalidArgument, "ods_request_delegate.version \(version) is newer than this library (\(ODS_REQUEST_DELEGATE_VERSION))")
        }
        return DelegateBridge(p.pointee)
    }
}

/// The Swift completion that calls an app's `ods_completion_cb`.
func completionBridge(_ callback: ods_completion_cb) -> RequestCompletion {
    let fn = CFunction(function: callback)
    return { request, outcome in
        let context = request.cContext.context.pointer
        switch outcome {
        case .success(let response):
            let view = ResponseView(response)
            withExtendedLifetime(view) {
                fn.function(Handle.pointer(request), view.pointer, nil, context)
            }
        case .failure(let failure):
            let record = ErrorRecord(failure.error)
            let view = failure.response.map(ResponseView.init)
            withExtendedLifetime((record, view)) {
                fn.function(Handle.pointer(request), view?.pointer, record.record, context)
            }
        }
    }
}
