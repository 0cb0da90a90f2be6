import Foundation

/// Locates and reads files under Tests/Fixtures (copies of /work/shared/testdata, upstream layout).
enum FixtureFiles {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    static func text(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: url(path)), as: UTF8.self)
    }

    /// All fixture files whose path matches `predicate`, relative to the fixture root, sorted.
    static func paths(where predicate: (String) -> Bool) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var out: [String] = []
        while let p = e.nextObject() as? String {
            if predicate(p) { out.append(p) }
        }
        return out.sorted()
    }
}
