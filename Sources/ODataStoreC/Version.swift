// The library version, as include/odatastore.h declares it.
//
// The version lives in project(VERSION) of CMakeLists.txt; this file and the header's
// ODS_VERSION_* macros repeat it. CMake refuses to configure when the three disagree, and
// Tests/c/test_version.c checks the built library against the header at run time.

import CODataStoreABI

/// The version string handed out by `ods_version()`.
///
/// A `StaticString` literal is stored by the compiler as NUL-terminated UTF-8 in the
/// binary's read-only data, so `utf8Start` is a valid C string for the life of the process.
/// (A Swift `String` gives no such guarantee for its storage.)
let odsVersionString: StaticString = "0.2.0"

/// MAJOR * 1000000 + MINOR * 1000 + PATCH, as ODS_VERSION_NUMBER.
let odsVersionNumber: Int32 = 0 * 1_000_000 + 2 * 1_000 + 0

/// `const char *ods_version(void)`: static storage, never NULL, never freed.
/// Thread-safe: reads immutable data only.
@c @implementation
public func ods_version() -> UnsafePointer<CChar>? {
    UnsafeRawPointer(odsVersionString.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// `int ods_version_number(void)`. Thread-safe.
@c @implementation
public func ods_version_number() -> Int32 {
    odsVersionNumber
}
