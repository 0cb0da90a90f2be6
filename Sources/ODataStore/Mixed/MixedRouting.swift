/// The router's question to the offline engine: does the store file answer this request
/// completely? One check, the one local reads make (`LocalReader.check`, over the engine's
/// `OfflineScope`), on the request's resource path parsed by the protocol layer's parser
/// (full URLs under the service root, key predicates, navigation, query options), so the
/// router and the offline store never disagree about what the file covers.
extension OfflineEngine {
    /// True when the request goes to the file in mixed mode (docs/mixed.md, "How a request is
    /// routed"):
    /// - function and action imports: never (the service runs them);
    /// - READ: when every set and navigation the path, `$filter`, `$orderby` and `$expand`
    ///   reach is covered by a defining request and the store evaluates all its options
    ///   (`$search`, `$apply` go to the service); also the `ErrorArchive` of the file;
    /// - CREATE/UPDATE/DELETE: when every set on the path is covered (the change goes to the
    ///   local queue; options a local change does not take are refused there, clearly);
    /// - a path the parser refuses against `$metadata` goes to the service, which says why.
    /// Before the file is open (never in practice: the store holds requests until then) the
    /// file's side is chosen, which reports the state.
    func answersLocally(_ job: RequestJob) -> Bool {
        if job.mode == .function { return false }
        let snapshot = state.withLock { s -> (ServiceModel, StoreSchema, OfflineScope)? in
            guard let model = s.model, let schema = s.schema else { return nil }
            return (model, schema, s.scope)
        }
        guard let (model, schema, scope) = snapshot else { return true }
        let root = session.serviceRoot
        if job.mode == .read, ErrorArchiveName.matches(job.path, serviceRoot: root, model: model) { return true }
        // The file's $metadata is the one the store works with (the service's may be newer:
        // route = online asks it).
        if job.mode == .read, ResourceTarget.isMetadata(job.path, serviceRoot: root) { return true }
        do throws(ODataStoreError) {
            var request = try ResolvedPath.parse(job.path, model: model, serviceRoot: root)
            if job.mode == .read {
                let resolved = try ResolvedPath.resolve(request, schema: schema)
                _ = try LocalReader.check(request, resolved, scope: scope, schema: schema)
                return true
            }
            // A change is routed by its path alone: one to a covered set always goes to the
            // queue (which refuses query options on changes clearly), so the queue keeps the
            // order of the app's changes to what the file holds.
            request.options = QueryOptions()
            let resolved = try ResolvedPath.resolve(request, schema: schema)
            return resolved.steps.allSatisfy { scope.covers($0.table) }
        } catch {
            switch error.code {
            case .notInScope, .unsupported, .syntax: return false
            default: return true   // the file's answer states the problem (e.g. a bad key)
            }
        }
    }
}
