// swift-tools-version:6.0
// Upload benchmark (not a test): build in release, run through run.sh.
import PackageDescription

let package = Package(
    name: "upload-bench",
    dependencies: [.package(name: "odatastore", path: "../..")],
    targets: [
        .executableTarget(name: "upload-bench",
                          dependencies: [.product(name: "ODataStore", package: "odatastore")]),
    ]
)
