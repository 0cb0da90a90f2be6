// upload-bench: the library side of the upload benchmark (bench/upload/run.sh), through the
// Swift API over the ODataStore module (the C surface's ods_store_upload runs the same
// `Upload`; the Swift driver is used so that the checks below read naturally).
//
//   upload-bench prepare --service URL --store FILE --creates N
//       A new offline store (defining request Products), then N local creates of products
//       the service keys (no ID: local keys, mapped to the service's on upload), one
//       request at a time. Prints a JSON line with the time the local writes took.
//   upload-bench upload --service URL --store FILE --batch-size B --expect N [--server-pid P]
//       Reopens the store and uploads its queue with uploadBatchSize B (1: one request per
//       change). Times the upload alone (wall: CLOCK_MONOTONIC; client CPU: getrusage
//       RUSAGE_SELF, every thread; server CPU: /proc/P/stat utime + stime), then checks:
//       N confirmed, nothing failed or left, every local key mapped to a service key, and
//       the service (read over HTTP) has 300 + N products. Prints one JSON line, with the
//       time the client's and the server's threads waited for a CPU (schedstat run_delay).
import Dispatch
import Foundation
import ODataStore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(("upload-bench: " + message + "\n").data(using: .utf8)!)
    exit(2)
}

func nowMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

func cpuMilliseconds() -> (user: Double, sys: Double) {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return (Double(u.ru_utime.tv_sec) * 1e3 + Double(u.ru_utime.tv_usec) / 1e3,
            Double(u.ru_stime.tv_sec) * 1e3 + Double(u.ru_stime.tv_usec) / 1e3)
}

/// utime + stime of a process in milliseconds, from /proc/<pid>/stat.
func processCPU(_ pid: Int?) -> Double? {
    guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After "pid (comm)": state is field 3, utime 14, stime 15 (1-based over the whole line).
    guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return nil }
    return (u + s) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Milliseconds the threads of a process (live ones) spent runnable but waiting for a CPU
/// (the run queue: `run_delay`, the second field of /proc/<pid>/task/<tid>/schedstat). Where
/// the machine is shared, this is the part of the wall time that is neither process's work.
func runQueueWait(_ pid: Int?) -> Double? {
    let base = "/proc/\(pid.map(String.init) ?? "self")/task"
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: base) else { return nil }
    var total = 0.0
    for t in tasks {
        guard let text = try? String(contentsOfFile: "\(base)/\(t)/schedstat", encoding: .utf8) else { continue }
        let fields = text.split(separator: " ")
        if fields.count >= 2, let ns = Double(fields[1]) { total += ns / 1e6 }
    }
    return total
}

var args = Array(CommandLine.arguments.dropFirst())
guard let command = args.first else { fail("prepare|upload ...") }
args.removeFirst()
var named: [String: String] = [:]
while args.count >= 2 {
    named[args[0]] = args[1]
    args.removeFirst(2)
}
guard let service = named["--service"], let path = named["--store"] else { fail("--service and --store are required") }

final class Waiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var values: [Any] = []
    func put(_ v: Any) { lock.lock(); values.append(v); lock.unlock(); semaphore.signal() }
    func take() -> Any { semaphore.wait(); lock.lock(); defer { lock.unlock() }; return values.removeFirst() }
}

func open(_ options: StoreOptions) -> Store {
    let w = Waiter()
    let store: Store
    do {
        store = try Store(options: options) { _, state, error in
            if state != .opening { w.put((state, error as Any)) }
        }
    } catch { fail("open: \(error)") }
    let (state, error) = w.take() as! (StoreState, Any)
    guard state == .open else { fail("the store did not open: \(error)") }
    return store
}

func run(_ store: Store, _ mode: RequestMode, _ path: String, body: String? = nil) -> Result<Response, RequestFailure> {
    let w = Waiter()
    do {
        let r = try store.makeRequest(mode, path: path, body: body)
        try r.setCompletion { _, outcome in w.put(outcome) }
        try r.start()
    } catch { fail("\(mode) \(path): \(error)") }
    return w.take() as! Result<Response, RequestFailure>
}

// UPLOAD_BENCH_LOG=1: the library's debug log on stderr (what was sent when), for looking
// into a run; never set by run.sh (it costs time).
if ProcessInfo.processInfo.environment["UPLOAD_BENCH_LOG"] == "1" {
    ODataStoreLog.setHandler(level: .debug) { r in
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        FileHandle.standardError.write("\(ts.tv_sec).\(String(ts.tv_nsec / 1000 + 1_000_000).dropFirst()) \(r.level.name) \(r.category.rawValue) \(r.message)\n".data(using: .utf8)!)
    }
}

var options = StoreOptions(serviceRoot: service)
options.kind = .offline
options.storePath = path

switch command {
case "prepare":
    guard let n = Int(named["--creates"] ?? "") else { fail("--creates N") }
    options.definingRequests = ["Products"]
    let store = open(options)
    let start = nowMilliseconds()
    for i in stride(from: 1, through: n, by: 1) {
        let body = #"{"Name":"Uploaded \#(i)","Price":"\#(i % 1000).50","Stock":"\#(i)","Discontinued":false,"CategoryID":\#(i % 10 + 1)}"#
        if case .failure(let f) = run(store, .create, "Products", body: body) { fail("create \(i): \(f.error)") }
    }
    let wall = nowMilliseconds() - start
    let pending = (try? store.pendingChangeCount()) ?? -1
    try? store.close()
    guard pending == n else { fail("\(pending) changes queued, not \(n)") }
    print(#"{"creates":\#(n),"local_writes_ms":\#(wall)}"#)

case "upload":
    guard let batch = Int(named["--batch-size"] ?? ""), let expect = Int(named["--expect"] ?? "") else {
        fail("--batch-size B --expect N")
    }
    options.uploadBatchSize = batch
    let serverPID = named["--server-pid"].flatMap { Int($0) }
    let store = open(options)
    guard (try? store.pendingChangeCount()) == Int64(expect) else { fail("the store does not hold \(expect) queued changes") }
    let w = Waiter()
    let serverBefore = processCPU(serverPID)
    let serverWaitBefore = serverPID == nil ? nil : runQueueWait(serverPID)
    let waitBefore = runQueueWait(nil)
    let cpuBefore = cpuMilliseconds()
    let start = nowMilliseconds()
    do {
        try store.upload { _, r in w.put(r) }
    } catch { fail("upload: \(error)") }
    let result = w.take() as! Result<UploadResult, ODataStoreError>
    let wall = nowMilliseconds() - start
    let cpuAfter = cpuMilliseconds()
    let serverAfter = processCPU(serverPID)
    let waitAfter = runQueueWait(nil)
    let serverWaitAfter = serverPID == nil ? nil : runQueueWait(serverPID)
    guard case .success(let r) = result else { fail("upload failed: \(result)") }
    guard r == UploadResult(confirmed: expect, failed: 0, remaining: 0) else { fail("upload: \(r)") }
    let mappings = (try? store.keyMappings()) ?? []
    guard mappings.count == expect, mappings.allSatisfy({ $0.serverPath != nil }) else { fail("key mappings: \(mappings.count)") }
    try? store.close()
    // The service's side, read over HTTP.
    let online = open(StoreOptions(serviceRoot: service))
    guard case .success(let count) = run(online, .read, "Products/$count"), count.json == #"{"value":\#(300 + expect)}"# else {
        fail("the service does not have \(300 + expect) products")
    }
    try? online.close()
    let user = cpuAfter.user - cpuBefore.user, sys = cpuAfter.sys - cpuBefore.sys
    let server = (serverBefore != nil && serverAfter != nil) ? String(serverAfter! - serverBefore!) : "null"
    func difference(_ a: Double?, _ b: Double?) -> String { (a != nil && b != nil) ? String(max(b! - a!, 0)) : "null" }
    let waits = #""client_runq_ms":\#(difference(waitBefore, waitAfter)),"server_runq_ms":\#(difference(serverWaitBefore, serverWaitAfter))"#
    print(#"{"changes":\#(expect),"batch_size":\#(batch),"wall_ms":\#(wall),"cpu_user_ms":\#(user),"cpu_sys_ms":\#(sys),"server_cpu_ms":\#(server),\#(waits)}"#)

default:
    fail("unknown command \(command)")
}
