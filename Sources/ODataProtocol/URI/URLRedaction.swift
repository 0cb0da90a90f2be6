/// Hides credentials written into a URL (`scheme://user:password@host/...`) before the URL
/// appears in a message: the user name stays, the password becomes as many `*` as it had
/// characters (so a caret printed under a position still lines up).
public enum URLRedaction {
    public static func redactingPassword(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userinfo = authority[..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return url }
        let password = userinfo[userinfo.index(after: colon)...]
        return String(url[..<password.startIndex]) + String(repeating: "*", count: password.count)
            + String(url[password.endIndex...])
    }

    /// True when the URL's authority has a `user[:password]@` part.
    public static func hasUserinfo(_ url: String) -> Bool {
        guard let schemeEnd = url.firstRange(of: "://") else { return false }
        return url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }.contains("@")
    }
}
