/// The library version; include/odatastore.h carries the same numbers (checked by tests).
public enum LibraryVersion {
    public static let major = 0
    public static let minor = 1
    public static let patch = 0
    public static let string = "0.2.0"
    public static var number: Int { major * 1_000_000 + minor * 1_000 + patch }
}
