/// How the store authenticates to the service. Credentials are sent only over the
/// connection to the service root's host.
public enum Authentication: Sendable, Equatable {
    case none
    /// HTTP Basic.
    case basic(username: String, password: String)
    /// `Authorization: Bearer <token>`.
    case bearer(token: String)
}
