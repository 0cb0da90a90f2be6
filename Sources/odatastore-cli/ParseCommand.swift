#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataStore

/// `odatastore parse URL`: the URL parser and schema check (`ods_url_check`) on the command line.
struct ParseCommand: RunnableCommand {
    static let command = Command(
        Self.self, name: "parse",
        abstract: "Parse an OData request URL and print it as JSON.",
        discussion: """
            Prints the canonical URL, the resource path segments with their keys, and every query \
            option ($filter as a tree). With --metadata the request is also checked against that \
            $metadata document. On an invalid URL: the message, the URL and a caret under the \
            problem on stderr, exit status 2.

            Example: odatastore parse "Products?$filter=Price gt 10" --metadata metadata.xml
            """,
        arguments: [
            .positional("url", help: "The URL: absolute, an absolute path, or relative to the service root."),
            .option("metadata", help: "Check the request against this $metadata document (V2 or V4)."),
            .option("odata-version", help: "Accept only this protocol version's syntax: 2 or 4 (default: the document's, or both)."),
            .option("service-root", help: "The service root; absolute URLs must lie under it."),
            .flag("plus-as-space", help: "Decode '+' as a space (default: a literal plus)."),
        ])

    var url: String
    var metadata: String?
    var odataVersion: String?
    var serviceRoot: String?
    var plusAsSpace: Bool

    init(_ a: ParsedArguments) {
        url = a.required("url")
        metadata = a.string("metadata")
        odataVersion = a.string("odata-version")
        serviceRoot = a.string("service-root")
        plusAsSpace = a.flag("plus-as-space")
    }

    func validate() throws {
        if let v = odataVersion, !["2", "2.0", "4", "4.0", "4.01"].contains(v) {
            throw ValidationError("--odata-version must be 2 or 4")
        }
    }

    func run() throws {
        var version: ODataVersion? = nil
        if let v = odataVersion { version = v.hasPrefix("2") ? .v2 : .v4 }
        var model: ServiceModel? = nil
        if let path = metadata {
            let bytes: [UInt8]
            switch readFile(path) {
            case .success(let b): bytes = b
            case .failure(let f):
                writeError("error: \(f.message)")
                throw ExitCode(66)
            }
            do {
                model = try MetadataParser.parse(bytes)
            } catch {
                writeError("error: \(path): \(error.description)")
                throw ExitCode(2)
            }
        }
        switch URLChecker.check(url, model: model, version: version, serviceRoot: serviceRoot, plusAsSpace: plusAsSpace) {
        case .success(let json):
            print(json)
        case .failure(let e):
            writeError("error: \(URLRedaction.redactingPassword(e.message)) at position \(e.position)")
            writeError(caretLines(url, e.position))
            throw ExitCode(2)
        }
    }
}

func writeError(_ s: String) {
    let bytes = Array((s + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        offset += n
    }
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
