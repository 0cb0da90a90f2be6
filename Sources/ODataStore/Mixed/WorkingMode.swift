/// Where a mixed store sends requests (`ods_store_mode`). The app may switch it at any time;
/// requests already executing finish on the side they started on.
public enum WorkingMode: Int32, Sendable, Hashable, CaseIterable {
    /// Each request goes where its data is: to the store file when the defining requests cover
    /// everything it reads or changes, to the service otherwise (docs/mixed.md).
    case mixed = 0
    /// Every request goes to the service (as an online store).
    case online = 1
    /// Every request is answered from the store file (as an offline store).
    case offline = 2
}

/// A request's own choice of side (`ods_route`), set before it starts; it wins over the
/// store's working mode. Only mixed stores accept a side other than `.automatic`.
public enum RequestRoute: Int32, Sendable, Hashable, CaseIterable {
    /// The store's working mode decides.
    case automatic = 0
    /// The service answers.
    case online = 1
    /// The store file answers (or the request fails as in an offline store).
    case offline = 2
}
