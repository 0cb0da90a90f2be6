/// Server-driven paging (`ods_paging`).
public enum Paging: Int32, Sendable, Hashable {
    /// One page; the response carries the next link.
    case none = 0
    /// Follow next links and deliver all pages as one response.
    case follow = 1
}
