/// Logon: how an app gives the store credentials when the service asks for them (docs/logon.md).
///
/// The store calls the app's `LogonHandler` (through its dispatch mode, never under a lock)
/// when the service answers 401, or, with `StoreOptions.sessionExpiredOnLoginPage`, when it
/// answers an OData request with an HTML page. The app answers with `Store.logon(_:reply:)`,
/// at once or later, from any thread. Meanwhile the store holds the requests that failed and
/// the ones started since; then it sends them again with the new credentials (or fails them
/// with `.unauthorized` when the app refuses). However many requests failed together, the app
/// is asked once.

/// Why the store asks for credentials.
public enum LogonReason: Int32, Sendable, Hashable {
    /// The service wants credentials the store does not have (the first 401 of a store
    /// without credentials, or with credentials given in its options that it refuses).
    case required = 1
    /// Credentials that worked no longer do: the session expired (a 401, or a login page).
    case expired = 2
    /// The credentials of the last reply were refused at once.
    case rejected = 3
}

/// What the store tells the app when it asks for credentials. Carries no credentials.
public struct LogonChallenge: Sendable {
    /// Unique in the process; the id to answer with (`Store.logon(_:reply:)`).
    public let id: UInt64
    public let reason: LogonReason
    /// The status that asked (401; 200 for a login page).
    public let httpStatus: Int
    /// The service's `WWW-Authenticate` header, if any (printable ASCII, at most 200 bytes).
    public let authenticate: String?
    /// 1 for the first prompt since credentials last worked, then 2, 3, ... up to
    /// `StoreOptions.maxLogonAttempts`.
    public let attempt: Int
}

/// The app's answer to a `LogonChallenge`.
public enum LogonReply: Sendable, CustomStringConvertible {
    /// HTTP Basic (`Authorization: Basic ...`).
    case basic(username: String, password: String)
    /// `Authorization: Bearer <token>`.
    case bearer(token: String)
    /// Headers of the app's own (a cookie from an SSO flow, an API key...), sent with every
    /// request from now on, replacing same-named ones and the store's earlier credentials.
    case headers([(name: String, value: String)])
    /// No credentials: the held requests fail with `.unauthorized`.
    case refuse

    /// Never shows a secret (only the kind, the user name and the header names).
    public var description: String {
        switch self {
        case .basic(let user, _): "basic(username: \(user), password: <redacted>)"
        case .bearer: "bearer(<redacted>)"
        case .headers(let h): "headers(\(h.map { "\($0.name): <redacted>" }.joined(separator: ", ")))"
        case .refuse: "refuse"
        }
    }

    /// The header lines to send, or nil for `.refuse`. Throws for values that cannot be sent
    /// (the message never quotes a value).
    func headerLines() throws(ODataStoreError) -> [(name: String, value: String)]? {
        switch self {
        case .refuse:
            return nil
        case .basic(let user, let password):
            guard isValidHeaderValue(user), !user.contains(":") else {
                throw .invalid("the logon's username must not contain ':', CR, LF or NUL")
            }
            guard isValidHeaderValue(password) else { throw .invalid("the logon's password must not contain CR, LF or NUL") }
            return [ProtocolHeaders.authorization(.basic(username: user, password: password))].compactMap { $0 }
        case .bearer(let token):
            guard !token.isEmpty, isValidFieldValue(token) else { throw .invalid("the logon's bearer token is empty or has control characters") }
            return [ProtocolHeaders.authorization(.bearer(token: token))].compactMap { $0 }
        case .headers(let lines):
            guard !lines.isEmpty, lines.count <= 100 else { throw .invalid("a logon reply needs 1 to 100 header lines") }
            for h in lines {
                guard isValidHeaderName(h.name) else { throw .invalid("a logon header has an invalid name") }
                guard isValidFieldValue(h.value) else { throw .invalid("the logon header \(h.name) has CR, LF, NUL or another control character in its value") }
            }
            return lines
        }
    }
}

/// Called when the service wants credentials; answer with `Store.logon(_:reply:)`.
public typealias LogonHandler = @Sendable (Store, LogonChallenge) -> Void

extension Authentication: CustomStringConvertible {
    /// Never shows a secret.
    public var description: String {
        switch self {
        case .none: "none"
        case .basic(let user, _): "basic(username: \(user), password: <redacted>)"
        case .bearer: "bearer(<redacted>)"
        }
    }
}
