// odatastore-fuzz: the fuzz targets of Sources/ODataFuzzTargets as one executable.
//
// Built by scripts/fuzz.sh with `-sanitize=fuzzer` and ODS_LIBFUZZER defined: libFuzzer owns
// main() and calls LLVMFuzzerTestOneInput; ODS_FUZZ_TARGET names the target. Built without
// it (a plain `swift build`), it replays files: `odatastore-fuzz TARGET FILE...`.
#if canImport(Glibc)
import Glibc
#endif
import ODataFuzzTargets

/// Writes a line to standard error (fd 2; no shared FILE*).
func printError(_ s: String) {
    let bytes = Array((s + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

#if ODS_LIBFUZZER
nonisolated(unsafe) private var selected: FuzzTarget? = {
    guard let name = getenv("ODS_FUZZ_TARGET").map({ String(cString: $0) }), let t = FuzzTarget(rawValue: name) else {
        printError("odatastore-fuzz: set ODS_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue))")
        exit(2)
    }
    return t
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTargets.run(target, bytes)
    return 0
}

/// libFuzzer's driver (libclang_rt.fuzzer), entered from our own main: SwiftPM links an
/// executable's main under its own name (odatastore_fuzz_main), so libFuzzer's main() is not
/// the one that runs.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@main
struct Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzerTestOneInput($0, $1) })
    }
}
#else
@main
struct Replay {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            printError("usage: odatastore-fuzz TARGET FILE...  (TARGET: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))")
            exit(64)
        }
        for path in args.dropFirst() {
            guard let f = fopen(path, "rb") else { printError("cannot read \(path)"); exit(66) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
                if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
                if n < chunk.count { break }
            }
            fclose(f)
            FuzzTargets.run(target, bytes)
        }
        print("replayed \(args.count - 1) inputs through \(target.rawValue)")
    }
}
#endif
