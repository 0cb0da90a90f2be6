/// The library version (Swift API, User-Agent, the CLI's --version, store files). CMake's
/// configure step (cmake/ODSVersionCheck.cmake) fails when these disagree with project(VERSION),
/// the header's ODS_VERSION_* and Sources/ODataStoreC/Version.swift.
public enum LibraryVersion {
    public static let major = 0
    public static let minor = 2
    public static let patch = 0
    public static let string = "0.2.0"
    public static var number: Int { major * 1_000_000 + minor * 1_000 + patch }
}
