import Foundation
import Testing
import ODataFuzzTargets

/// Replays Tests/fuzz/regressions/<target>/* (inputs that once broke a fuzz target) and a
/// sample of the real fixtures through every fuzz target, as `swift test` runs (no libFuzzer).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func files(_ dir: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? [])
            .filter { !$0.lastPathComponent.hasPrefix(".") && $0.pathExtension != "md" }
            .sorted { $0.path < $1.path }
    }

    @Test(arguments: FuzzTarget.allCases)
    func regressionsStayFixed(_ target: FuzzTarget) throws {
        for file in Self.files(Self.root.appendingPathComponent("fuzz/regressions/\(target.rawValue)")) {
            FuzzTargets.run(target, Array(try Data(contentsOf: file)))
        }
    }

    @Test func everyTargetTakesRealDocumentsAndNoise() throws {
        let fixtures = Self.root.appendingPathComponent("Fixtures")
        var inputs: [[UInt8]] = [[], [0], Array("{".utf8), Array("<".utf8), Array("HTTP/1.1 200 OK\r\n\r\n".utf8)]
        if let e = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: nil) {
            var n = 0
            for case let url as URL in e where ["json", "xml", "batch"].contains(url.pathExtension) && n < 40 {
                inputs.append(Array(try Data(contentsOf: url)))
                n += 1
            }
        }
        for target in FuzzTarget.allCases {
            for input in inputs { FuzzTargets.run(target, input) }
        }
    }
}
