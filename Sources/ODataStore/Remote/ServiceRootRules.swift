/// What a service root may look like: `http(s)://host[:port]/path/`, nothing else. Every
/// request URL is the root plus a path, so a fragment would swallow every path, a query would
/// end up in the middle of the URL, and credentials belong in the store's authentication
/// options (where they are sent only to this host), not in a URL that is echoed in messages.
enum ServiceRootRules {
    static func check(_ root: String) throws(ODataStoreError) {
        let shown = URLRedaction.redactingPassword(root)
        guard root.hasPrefix("http://") || root.hasPrefix("https://"), root.utf8.count > 8 else {
            throw .invalid("service_root must be an http:// or https:// URL, got \"\(shown)\"")
        }
        guard isValidHeaderValue(root), !root.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalid("service_root contains spaces or control characters")
        }
        guard !URLRedaction.hasUserinfo(root) else {
            throw .invalid("service_root must not contain user:password@; use the auth, username and password options")
        }
        guard !root.contains("#") else {
            throw .invalid("service_root must not contain a fragment ('#'): \"\(shown)\"")
        }
        guard !root.contains("?") else {
            throw .invalid("service_root must not contain a query ('?'); put query options in each request's path, or send them as headers (e.g. sap-client): \"\(shown)\"")
        }
        guard let origin = RequestURL.origin(of: root), origin.count > (root.hasPrefix("https") ? 8 : 7) else {
            throw .invalid("service_root has no host: \"\(shown)\"")
        }
    }
}
