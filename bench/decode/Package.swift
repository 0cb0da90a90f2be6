// swift-tools-version:6.0
// Decoding benchmark (not a test): build in release, run through run.sh.
import PackageDescription

let package = Package(
    name: "decode-bench",
    dependencies: [.package(name: "odatastore", path: "../..")],
    targets: [
        .executableTarget(name: "decode-bench",
                          dependencies: [.product(name: "ODataProtocol", package: "odatastore")]),
        // Output digests for comparing two builds of the decoder (check_outputs.sh).
        .executableTarget(name: "decode-check",
                          dependencies: [.product(name: "ODataProtocol", package: "odatastore")]),
    ]
)
