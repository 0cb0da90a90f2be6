// swift-tools-version:6.0
// libodatastore: an OData client library with a C ABI. See README.md and docs/.
import PackageDescription

// The C library exports only ods_* (version script) and carries its own SONAME.
let exportFlags: [String] = [
    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/ODataStoreC/exports.map",
    "-Xlinker", "-soname=libodatastore.so.0",
]

let package = Package(
    name: "odatastore",
    // Synchronization (Mutex, Atomic) needs macOS 15; Linux has no minimum.
    platforms: [.macOS(.v15)],
    products: [
        // libodatastore.so: the C ABI (include/odatastore.h).
        .library(name: "odatastore", type: .dynamic, targets: ["ODataStoreC"]),
        // The Swift API, usable on its own (docs/swift.md).
        .library(name: "ODataStore", targets: ["ODataStore"]),
        // Foundation conveniences for the Swift API (Decimal, Date, UUID, Data, URL). Never a
        // dependency of the C library: full Foundation would add ~50 MB (ICU) to the .so.
        .library(name: "ODataStoreFoundation", targets: ["ODataStoreFoundation"]),
        .library(name: "ODataProtocol", targets: ["ODataProtocol"]),
        // The command-line tool (installed as `odatastore`).
        .executable(name: "odatastore-cli", targets: ["odatastore-cli"]),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // glibc's mallopt, for the command only (Sources/odatastore-cli/MallocSettings.swift).
        .systemLibrary(name: "CMalloc"),
        // include/odatastore.h imported into Swift (no library to link: it is what we build).
        .systemLibrary(name: "CODataStoreABI"),
        // Sources/CScan/include/scan.h: the page splitter's 64-byte block scan (SSE2, portable
        // fallback), static inline; a C target (not a system library) so that an edit of the
        // header rebuilds the Swift code that inlines it.
        .target(name: "CScan", exclude: ["README.md"]),

        // Protocol: CSDL, resource paths, $filter, payload codecs, $batch. Pure: no I/O.
        .target(name: "ODataProtocol", dependencies: ["CXML2", "CScan"], exclude: [
            "README.md", "Batch/README.md", "Filter/README.md", "JSON/README.md", "Metadata/README.md",
            "Payload/README.md", "URI/README.md", "XML/README.md",
        ]),
        // Stores, scheduler, online (libcurl) and offline (SQLite) engines.
        .target(name: "ODataStore", dependencies: ["ODataProtocol", "CCurl", "CSQLite"], exclude: [
            "README.md", "Callbacks/README.md", "Errors/README.md", "Scheduler/README.md", "Store/README.md",
            "Support/README.md", "Swift/README.md", "Swift/Async/README.md", "Swift/Coding/README.md",
            "Swift/Requests/README.md", "Swift/Values/README.md", "Remote/README.md", "Remote/HTTP/README.md",
            "Online/README.md", "Mixed/README.md", "Offline/README.md", "Offline/Database/README.md",
            "Offline/Observe/README.md", "Offline/Query/README.md", "Offline/Query/Regex/README.md",
            "Offline/Queue/README.md", "Offline/Read/README.md", "Offline/Schema/README.md",
            "Offline/Sync/README.md", "Offline/Write/README.md",
        ]),
        // The only target that touches raw C pointers: the exports of include/odatastore.h, each
        // `@c @implementation` (the compiler checks its signature against the header).
        .target(name: "ODataStoreC", dependencies: ["ODataStore", "CODataStoreABI"], exclude: ["exports.map", "README.md"],
                linkerSettings: [.unsafeFlags(exportFlags)]),
        // Foundation bridging for Swift apps (Sources/ODataStoreFoundation/README.md).
        .target(name: "ODataStoreFoundation", dependencies: ["ODataStore"], exclude: ["README.md"]),
        // The command parses its arguments itself (Sources/odatastore-cli/Arguments/README.md).
        .executableTarget(name: "odatastore-cli", dependencies: [
            // CSQLite, CMalloc: the command sets SQLite's and malloc's process-wide options
            // (SQLiteProcessSettings.swift, MallocSettings.swift).
            "ODataStore", "CSQLite", "CMalloc",
        ], exclude: ["README.md", "Arguments/README.md"]),
        // Fuzz targets (issue 10): a library the tests replay regressions through, and the
        // libFuzzer executable scripts/fuzz.sh builds with -sanitize=fuzzer.
        .target(name: "ODataFuzzTargets", dependencies: ["ODataProtocol", "ODataStore"], exclude: ["README.md"]),
        .executableTarget(name: "odatastore-fuzz", dependencies: ["ODataFuzzTargets"], exclude: ["README.md"]),

        .testTarget(name: "ODataProtocolTests", dependencies: ["ODataProtocol"]),
        .testTarget(name: "ODataStoreTests", dependencies: ["ODataStore", "ODataFuzzTargets"]),
        // The Swift API through its public surface only (plain `import ODataStore`), against
        // the real test servers.
        .testTarget(name: "ODataStoreAPITests", dependencies: ["ODataStore", "ODataStoreFoundation"]),

        // examples/swift: built with the package, run against the test servers by
        // Tests/examples/test_swift_examples.py (scripts/test.sh).
        .executableTarget(name: "example-quickstart", dependencies: ["ODataStore"], path: "examples/swift/Quickstart"),
        .executableTarget(name: "example-offline", dependencies: ["ODataStore"], path: "examples/swift/Offline"),
        .executableTarget(name: "example-foundation", dependencies: ["ODataStore", "ODataStoreFoundation"],
                          path: "examples/swift/Foundation"),
    ]
)
