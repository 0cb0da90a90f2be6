// odatastore: command-line companion of libodatastore. See docs/cli.md.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataProtocol

let toolVersion = "0.1.0"

let usage = """
    usage: odatastore parse URL [--metadata FILE] [--odata-version 2|4] [--service-root URL] [--plus-as-space]
           odatastore --help | --version

    Commands:
      parse URL    Parse an OData request URL (absolute, absolute path, or relative to the
                   service root) and print it as JSON: the canonical URL, the resource path
                   segments with their keys, and every query option ($filter as a tree).

    Options:
      --metadata FILE       Check the request against this $metadata document (V2 or V4).
      --odata-version 2|4   Accept only this protocol version's syntax (default: the
                            document's version, or both without --metadata).
      --service-root URL    The service root; absolute URLs must lie under it.
      --plus-as-space       Decode '+' as a space (default: '+' is a literal plus).
      -h, --help            Show this help.
      --version             Show the version.

    Exit status: 0 success, 2 the URL (or the metadata) is invalid, 64 usage error,
    66 the metadata file cannot be read.
    """

func writeError(_ s: String) {
    let bytes = Array((s + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        offset += n
    }
}

func usageError(_ message: String) -> Never {
    writeError("odatastore: \(message)")
    writeError("usage: odatastore parse URL [--metadata FILE] [--odata-version 2|4] [--service-root URL]")
    exit(64)
}

/// Reads a whole file; nil when it cannot be opened or read.
func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n > 0 { out.append(contentsOf: buffer[0..<n]) }
        if n < buffer.count {
            if ferror(f) != 0 { return nil }
            break
        }
    }
    return out
}

/// The URL with a caret under character `position` (tabs kept so the caret lines up).
func caretLines(_ url: String, _ position: Int) -> String {
    var pad = ""
    for (i, ch) in url.enumerated() where i < position { pad += ch == "\t" ? "\t" : " " }
    if position > url.count { pad += String(repeating: " ", count: position - url.count) }
    return "  " + url + "\n  " + pad + "^"
}

func runParse(_ args: ArraySlice<String>) -> Int32 {
    var url: String? = nil
    var metadataPath: String? = nil
    var version: ODataVersion? = nil
    var serviceRoot: String? = nil
    var plusAsSpace = false
    var i = args.startIndex
    func value(_ option: String) -> String {
        guard i + 1 < args.endIndex else { usageError("\(option) needs a value") }
        i += 1
        return args[i]
    }
    while i < args.endIndex {
        let a = args[i]
        switch a {
        case "--metadata": metadataPath = value(a)
        case "--odata-version":
            switch value(a) {
            case "2", "2.0": version = .v2
            case "4", "4.0", "4.01": version = .v4
            default: usageError("--odata-version must be 2 or 4")
            }
        case "--service-root": serviceRoot = value(a)
        case "--plus-as-space": plusAsSpace = true
        case "-h", "--help":
            print(usage)
            return 0
        default:
            if a.hasPrefix("--") { usageError("unknown option \(a)") }
            guard url == nil else { usageError("more than one URL given") }
            url = a
        }
        i += 1
    }
    guard let url else { usageError("parse needs a URL") }
    var model: ServiceModel? = nil
    if let metadataPath {
        guard let bytes = readFile(metadataPath) else {
            writeError("error: cannot read \(metadataPath)")
            return 66
        }
        switch MetadataLoading.load(bytes) {
        case .success(let m): model = m
        case .failure(let e):
            writeError("error: \(metadataPath): \(e.message)")
            return 2
        }
    }
    switch URLChecker.check(url, model: model, version: version, serviceRoot: serviceRoot, plusAsSpace: plusAsSpace) {
    case .success(let json):
        print(json)
        return 0
    case .failure(let e):
        writeError("error: \(e.message) at position \(e.position)")
        writeError(caretLines(url, e.position))
        return 2
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first else {
    writeError(usage)
    exit(64)
}
switch command {
case "-h", "--help", "help":
    print(usage)
    exit(0)
case "--version", "version":
    print("odatastore \(toolVersion)")
    exit(0)
case "parse":
    exit(runParse(arguments.dropFirst()))
default:
    usageError("unknown command '\(command)'")
}
