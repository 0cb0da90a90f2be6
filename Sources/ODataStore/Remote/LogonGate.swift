import Synchronization

/// A session's credentials and its logon prompt (docs/logon.md).
///
/// Every exchange of the session takes the current credentials (`authorize`) and remembers
/// their generation. An exchange answered "log on" (401, or a login page) calls `challenged`
/// with that generation:
/// - credentials newer than the ones it was sent with are there already: it is sent again;
/// - a prompt is open: it waits for the reply with the others;
/// - else a prompt opens (the app is asked once, however many exchanges fail together).
/// While a prompt is open, exchanges not sent yet wait too (`whenReady`): nothing goes out
/// with credentials known to be stale. The reply resumes every waiter (send again, with the
/// new credentials), or fails them all (refused, too many attempts, closed).
///
/// Threading: thread-safe; waiters are resumed outside the lock, on the thread that
/// replied (or closed). The prompt itself goes to the app through `connect`'s closure
/// (the store's dispatch mode), never under the lock.
final class LogonGate: Sendable {
    /// Logon ids are unique in the process, so a reply to an old prompt (or to another
    /// store's) can never answer a new one.
    private static let nextID = Atomic<UInt64>(1)

    /// What a waiting exchange does next.
    enum Next: Sendable {
        /// Send (again), with the credentials current now.
        case send
        /// Give up: the logon was refused or failed; `message` says why (no secrets in it).
        case refused(String)
        /// Give up: too many exchanges wait (max_held_requests).
        case tooManyHeld(String)
        /// Give up: the store is closing.
        case closed
    }
    typealias Waiter = @Sendable (Next) -> Void

    private struct Prompt {
        let id: UInt64
        var waiters: [Waiter] = []
    }

    /// The credentials an attempt was sent with, and when: attempts are numbered as they
    /// take their credentials.
    struct Ticket: Sendable {
        var generation: UInt64
        var sequence: UInt64
    }

    private struct State {
        var generation: UInt64 = 0
        /// Attempts that took credentials so far.
        var sequence: UInt64 = 0
        /// The last logon that ended without credentials (refused, or too many attempts):
        /// attempts sent before it with the credentials it gave up on fail with it too, rather
        /// than asking again (the app is asked once for what failed together).
        var givenUp: (ticket: Ticket, why: String)?
        /// The credentials a logon reply gave (none before the first reply).
        var headers: [(name: String, value: String)] = []
        /// Names of headers a logon reply's credentials replace (the store's own
        /// credentials and the last reply's header names).
        var replaced: [String] = []
        var prompt: Prompt?
        /// Prompts since credentials last worked.
        var attempts = 0
        /// Whether any exchange got through with the current credentials.
        var worked = false
        var everWorked = false
        var closed = false
        var prompter: (@Sendable (LogonChallenge) -> Void)?
    }

    private let state: Locked<State>
    /// Whether the app handles logon at all (else a 401 is simply the answer).
    let enabled: Bool
    let maxAttempts: Int
    let maxHeld: Int
    let loginPageExpires: Bool

    init(options: StoreOptions) {
        enabled = options.logonHandler != nil
        maxAttempts = options.maxLogonAttempts
        maxHeld = options.limits.maxHeldRequests
        loginPageExpires = options.sessionExpiredOnLoginPage
        var initial = State()
        if options.authentication != .none { initial.replaced = ["Authorization"] }
        state = Locked(initial)
    }

    /// Installs the function that asks the app (the store's, through its dispatch mode).
    /// Before the store starts opening: no prompt can come earlier.
    func connect(_ prompter: @escaping @Sendable (LogonChallenge) -> Void) {
        state.withLock { $0.prompter = prompter }
    }

    /// True while a prompt waits for the app's reply.
    var isPrompting: Bool { state.withLock { $0.prompt != nil } }

    /// Puts the current credentials into `request` (those of a logon reply replace the
    /// store's own and same-named headers); returns their generation.
    func authorize(_ request: inout HTTPRequest) -> Ticket {
        let (ticket, headers, replaced) = state.withLock { s in
            s.sequence += 1
            return (Ticket(generation: s.generation, sequence: s.sequence), s.headers, s.replaced)
        }
        guard ticket.generation > 0 else { return ticket }
        request.headers.removeAll { h in replaced.contains { asciiCaseInsensitiveEquals($0, h.name) } }
        request.headers.append(contentsOf: headers)
        return ticket
    }

    /// Calls `go` with `.send` at once when no prompt is open, else when it is answered.
    func whenReady(_ go: @escaping Waiter) {
        let next: Next? = state.withLock { s in
            if s.closed { return .closed }
            guard s.prompt != nil else { return .send }
            if s.prompt!.waiters.count >= maxHeld {
                return .tooManyHeld("\(s.prompt!.waiters.count) requests wait for the logon (max_held_requests is \(maxHeld))")
            }
            s.prompt!.waiters.append(go)
            return nil
        }
        if let next { go(next) }
    }

    /// An exchange sent with credentials of `generation` got through: they work.
    func succeeded(generation: UInt64) {
        state.withLock { s in
            guard s.generation == generation, !s.worked || s.attempts != 0 else { return }
            s.worked = true
            s.everWorked = true
            s.attempts = 0
        }
    }

    /// An exchange sent with credentials of `generation` was answered "log on" (`status`;
    /// `authenticate`: its WWW-Authenticate). `go` learns what to do (possibly at once).
    func challenged(_ ticket: Ticket, status: Int, authenticate: String?, _ go: @escaping Waiter) {
        let generation = ticket.generation
        enum Step { case resume(Next), ask(LogonChallenge, @Sendable (LogonChallenge) -> Void), wait }
        let step: Step = state.withLock { s in
            if s.closed { return .resume(.closed) }
            if generation < s.generation { return .resume(.send) }  // a newer logon is there
            if let given = s.givenUp, given.ticket.generation == generation, ticket.sequence <= given.ticket.sequence {
                return .resume(.refused(given.why))  // failed together with a logon already given up
            }
            if s.prompt != nil {
                if s.prompt!.waiters.count >= maxHeld {
                    return .resume(.tooManyHeld("\(s.prompt!.waiters.count) requests wait for the logon (max_held_requests is \(maxHeld))"))
                }
                s.prompt!.waiters.append(go)
                return .wait
            }
            guard let prompter = s.prompter else { return .resume(.refused("the service requires a logon")) }
            if s.attempts >= maxAttempts {
                let why = "the service refused the credentials of \(maxAttempts) logons in a row (max_logon_attempts)"
                s.attempts = 0
                s.givenUp = (Ticket(generation: s.generation, sequence: s.sequence), why)
                return .resume(.refused(why))
            }
            s.attempts += 1
            let reason: LogonReason = s.generation > 0 && !s.worked ? .rejected : (s.everWorked ? .expired : .required)
            let id = LogonGate.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
            s.prompt = Prompt(id: id, waiters: [go])
            let challenge = LogonChallenge(id: id, reason: reason, httpStatus: status,
                                           authenticate: authenticate.map { ResponseErrors.printable($0, limit: 200) },
                                           attempt: s.attempts)
            return .ask(challenge, prompter)
        }
        switch step {
        case .resume(let next): go(next)
        case .ask(let challenge, let prompter):
            Log.info(.logon, "logon prompt \(challenge.id): \(challenge.reason) after HTTP \(status), attempt \(challenge.attempt)")
            prompter(challenge)
        case .wait: break
        }
    }

    /// The app's answer to prompt `id`. Throws `.invalidState` when no prompt `id` waits
    /// (answered already, or never asked), `.closed` after close, `.invalidArgument` for
    /// credentials that cannot be sent (the prompt stays open: answer again).
    func reply(id: UInt64, _ reply: LogonReply) throws(ODataStoreError) {
        let lines = try reply.headerLines()
        Log.info(.logon, Log.logonReply(id, reply))
        let (waiters, next): ([Waiter], Next) = try state.withLock { (s) throws(ODataStoreError) -> ([Waiter], Next) in
            if s.closed { throw ODataStoreError(.closed, "the store is closed; logon \(id) was given up") }
            guard let prompt = s.prompt, prompt.id == id else {
                throw .state("no logon \(id) is waiting for a reply (answered already, or not asked)")
            }
            s.prompt = nil
            guard let lines else {
                let why = "the app refused the logon"
                s.attempts = 0
                s.givenUp = (Ticket(generation: s.generation, sequence: s.sequence), why)
                return (prompt.waiters, .refused(why))
            }
            s.generation += 1
            s.headers = lines
            s.worked = false
            for h in lines where !s.replaced.contains(where: { asciiCaseInsensitiveEquals($0, h.name) }) {
                s.replaced.append(h.name)
            }
            return (prompt.waiters, .send)
        }
        for waiter in waiters { waiter(next) }
    }

    /// Fails every waiter (the store is closing); later prompts and replies are refused.
    func shutdown() {
        let waiters: [Waiter] = state.withLock { s in
            s.closed = true
            s.prompter = nil
            let w = s.prompt?.waiters ?? []
            s.prompt = nil
            return w
        }
        for waiter in waiters { waiter(.closed) }
    }
}
