import Synchronization
import Testing
@testable import ODataStore

/// The logon gate's rules without a network: one prompt for what failed together, stale 401s
/// resent without asking, refusals and exhausted attempts shared by what failed with them.
@Suite("Logon gate")
struct LogonGateTests {
    final class Log: Sendable {
        let prompts = Mutex<[LogonChallenge]>([])
        let outcomes = Mutex<[String]>([])
        func record(_ tag: String) -> LogonGate.Waiter {
            { next in
                let text: String
                switch next {
                case .send: text = "send"
                case .refused: text = "refused"
                case .tooManyHeld: text = "held"
                case .closed: text = "closed"
                }
                self.outcomes.withLock { $0.append("\(tag) \(text)") }
            }
        }
        var lastID: UInt64 { prompts.withLock { $0.last!.id } }
    }

    private func gate(maxAttempts: Int = 3, maxHeld: Int = 100) -> (LogonGate, Log) {
        var options = StoreOptions(serviceRoot: "http://127.0.0.1:9/")
        options.logonHandler = { _, _ in }
        options.maxLogonAttempts = maxAttempts
        options.limits.maxHeldRequests = maxHeld
        let gate = LogonGate(options: options)
        let log = Log()
        gate.connect { challenge in log.prompts.withLock { $0.append(challenge) } }
        return (gate, log)
    }

    private func ticket(_ gate: LogonGate) -> LogonGate.Ticket {
        var request = HTTPRequest(method: "GET", url: "http://127.0.0.1:9/x")
        return gate.authorize(&request)
    }

    @Test func aBurstOf401sAsksOnceAndResendsAll() throws {
        let (gate, log) = gate()
        let tickets = (0..<5).map { _ in ticket(gate) }
        for (i, t) in tickets.enumerated() { gate.challenged(t, status: 401, authenticate: nil, log.record("r\(i)")) }
        #expect(log.prompts.withLock { $0.count } == 1)
        #expect(gate.isPrompting)
        gate.whenReady(log.record("new"))  // started meanwhile: held
        #expect(log.outcomes.withLock { $0 }.isEmpty)
        try gate.reply(id: log.lastID, .bearer(token: "t"))
        #expect(log.outcomes.withLock { $0.count } == 6)
        #expect(log.outcomes.withLock { $0 }.allSatisfy { $0.hasSuffix("send") })
        // A 401 to the old credentials arriving late: resent, no prompt.
        gate.challenged(tickets[0], status: 401, authenticate: nil, log.record("late"))
        #expect(log.prompts.withLock { $0.count } == 1)
        // The new credentials go into requests, replacing the store's own.
        var request = HTTPRequest(method: "GET", url: "http://x/", headers: [("Authorization", "Basic old")])
        _ = gate.authorize(&request)
        #expect(request.headers.filter { $0.name == "Authorization" }.map(\.value) == ["Bearer t"])
        #expect(throws: ODataStoreError.self) { try gate.reply(id: log.lastID, .refuse) }  // twice
    }

    @Test func aRefusalFailsEverythingThatFailedWithIt() throws {
        let (gate, log) = gate()
        let early = ticket(gate), inFlight = ticket(gate)
        gate.challenged(early, status: 401, authenticate: nil, log.record("a"))
        try gate.reply(id: log.lastID, .refuse)
        gate.challenged(inFlight, status: 401, authenticate: nil, log.record("b"))  // its 401 came later
        #expect(log.outcomes.withLock { $0 } == ["a refused", "b refused"])
        #expect(log.prompts.withLock { $0.count } == 1)
        // A request sent after the refusal asks again.
        gate.challenged(ticket(gate), status: 401, authenticate: nil, log.record("c"))
        #expect(log.prompts.withLock { $0.count } == 2)
    }

    @Test func attemptsAreBoundedAndReasonsTold() throws {
        let (gate, log) = gate(maxAttempts: 2)
        gate.challenged(ticket(gate), status: 401, authenticate: "Basic", log.record("1"))
        try gate.reply(id: log.lastID, .basic(username: "u", password: "bad"))
        gate.challenged(ticket(gate), status: 401, authenticate: nil, log.record("2"))
        try gate.reply(id: log.lastID, .basic(username: "u", password: "worse"))
        gate.challenged(ticket(gate), status: 401, authenticate: nil, log.record("3"))
        #expect(log.prompts.withLock { $0.map(\.reason) } == [.required, .rejected])
        #expect(log.prompts.withLock { $0.map(\.attempt) } == [1, 2])
        #expect(log.outcomes.withLock { $0 } == ["1 send", "2 send", "3 refused"])
        // Once something got through, the next 401 is an expiry.
        let t = ticket(gate)
        gate.succeeded(generation: t.generation)
        gate.challenged(ticket(gate), status: 401, authenticate: nil, log.record("4"))
        #expect(log.prompts.withLock { $0.last?.reason } == .expired)
        #expect(log.prompts.withLock { $0.last?.attempt } == 1)
    }

    @Test func heldExchangesAreBoundedAndGivenUpOnClose() throws {
        let (gate, log) = gate(maxHeld: 2)
        gate.challenged(ticket(gate), status: 401, authenticate: nil, log.record("a"))
        gate.whenReady(log.record("b"))
        gate.whenReady(log.record("c"))  // the third waiter
        gate.shutdown()
        #expect(log.outcomes.withLock { $0 } == ["c held", "a closed", "b closed"])
        #expect { try gate.reply(id: log.lastID, .refuse) } throws: { ($0 as? ODataStoreError)?.code == .closed }
        gate.whenReady(log.record("d"))
        #expect(log.outcomes.withLock { $0.last } == "d closed")
    }
}
