import Foundation
import Testing
@testable import ODataProtocol

/// The deepest inputs the parser limits allow (nesting 99 of each recursive construct, and an
/// operator chain of height 1000) go through parse, schema check, canonical print and JSON on
/// a thread with a bounded stack. Measured: release builds need under 512 KB for all of them,
/// debug builds about 2 MB; this test gives the debug build 4 MB.
@Suite struct StackDepthTests {
    static let inputs: [String] = {
        let n = 99
        return [
            "People('x')/Trips?$filter=" + (0..<(n - 1)).map { "PlanItems/any(p\($0):" }.joined() + "true" + String(repeating: ")", count: n - 1),
            "People('x')/Trips?$filter=" + String(repeating: "tolower(", count: n) + "Name" + String(repeating: ")", count: n) + " eq 'x'",
            "People('x')/Trips?$filter=" + (0..<n).map { "Budget gt \($0) or (" }.joined() + "true" + String(repeating: ")", count: n),
            "People('x')/Trips?$filter=" + String(repeating: "(", count: n) + "Budget gt 1" + String(repeating: ")", count: n),
            "People('x')/Trips?$filter=" + String(repeating: "not ", count: n) + "true",
            "People('x')/Trips?$filter=" + (0..<999).map { "Budget gt \($0)" }.joined(separator: " or "),
            "People?$expand=" + String(repeating: "Friends($expand=", count: 98) + "Trips" + String(repeating: ")", count: 98),
            // The 4.01 constructs: JSON arrays and objects, filter segments, $search, $apply.
            "People?@a=" + String(repeating: "[", count: n) + "1" + String(repeating: "]", count: n),
            "People?@a=" + String(repeating: "{\"a\":", count: n) + "1" + String(repeating: "}", count: n),
            "People?$filter=" + String(repeating: "Friends/$filter(", count: n / 2) + "true" + String(repeating: ")/$count gt 0", count: n / 2),
            "People?$search=" + String(repeating: "(", count: n) + "a" + String(repeating: ")", count: n),
            "People?$search=" + String(repeating: "NOT ", count: n) + "a",
            "People?$apply=" + String(repeating: "concat(identity,", count: n - 1) + "identity" + String(repeating: ")", count: n - 1),
        ]
    }()

    @Test func deepestAllowedInputsOnABoundedStack() throws {
        let model = try MetadataParser.parse(try MetadataFixture.bytes(MetadataFixture.tripPinOASIS.rawValue))
        let done = DispatchSemaphore(value: 0)
        let results = Box()
        let inputs = Self.inputs
        let thread = Thread {
            var ok: [Bool] = []
            for url in inputs {
                switch URLChecker.check(url, model: model) {
                case .success(let json): ok.append(json.hasPrefix("{"))
                case .failure: ok.append(false)
                }
            }
            results.set(ok)
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        done.wait()
        #expect(results.get() == Array(repeating: true, count: inputs.count))
    }
}

/// The worker thread's results, handed over under a lock.
final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [Bool] = []
    func set(_ v: [Bool]) { lock.lock(); value = v; lock.unlock() }
    func get() -> [Bool] { lock.lock(); defer { lock.unlock() }; return value }
}
