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

/// Largest `--metadata` document read (the library's default max_response_bytes).
let maxMetadataBytes = 64 << 20

/// Reads a whole regular file of at most `maxMetadataBytes`; the reason when it cannot. A FIFO
/// or a device is refused before it is opened (it could block or never end).
func readFile(_ path: String) -> Result<[UInt8], ReadFailure> {
    var st = stat()
    guard stat(path, &st) == 0 else { return .failure(ReadFailure(message: "cannot read \(path): \(String(cString: strerror(errno)))")) }
    guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(ReadFailure(message: "cannot read \(path): not a regular file")) }
    guard Int(st.st_size) <= maxMetadataBytes else {
        return .failure(ReadFailure(message: "cannot read \(path): larger than \(maxMetadataBytes) bytes"))
    }
    guard let f = fopen(path, "rb") else { return .failure(ReadFailure(message: "cannot read \(path): \(String(cString: strerror(errno)))")) }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n > 0 { out.append(contentsOf: buffer[0..<n]) }
        if out.count > maxMetadataBytes { return .failure(ReadFailure(message: "cannot read \(path): larger than \(maxMetadataBytes) bytes")) }
        if n < buffer.count {
            if ferror(f) != 0 { return .failure(ReadFailure(message: "cannot read \(path)")) }
            break
        }
    }
    return .success(out)
}

struct ReadFailure: Error { var message: String }

/// Terminal columns of a character: 2 for East Asian wide and fullwidth characters and
/// emoji, 1 otherwise (combining marks belong to their base character already).
func columns(_ ch: Character) -> Int {
    guard let v = ch.unicodeScalars.first?.value else { return 1 }
    switch v {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
         0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
         0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
        return 2
    default:
        return 1
    }
}

/// The URL (its password hidden) with a caret under character `position`; tabs are kept and
/// wide characters count two columns, so the caret lines up in a terminal.
func caretLines(_ url: String, _ position: Int) -> String {
    var pad = ""
    for (i, ch) in url.enumerated() where i < position {
        pad += ch == "\t" ? "\t" : String(repeating: " ", count: columns(ch))
    }
    if position > url.count { pad += String(repeating: " ", count: position - url.count) }
    return "  " + URLRedaction.redactingPassword(url) + "\n  " + pad + "^"
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
        let bytes: [UInt8]
        switch readFile(metadataPath) {
        case .success(let b): bytes = b
        case .failure(let f):
            writeError("error: \(f.message)")
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
        writeError("error: \(URLRedaction.redactingPassword(e.message)) at position \(e.position)")
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
