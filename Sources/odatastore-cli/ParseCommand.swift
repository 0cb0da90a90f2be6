import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import ODataStore

/// `odatastore parse URL`: the URL parser and schema check (`ods_url_check`) on the command line.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse an OData request URL and print it as JSON.",
        discussion: """
            Prints the canonical URL, the resource path segments with their keys, and every query \
            option ($filter as a tree). With --metadata the request is also checked against that \
            $metadata document. On an invalid URL: the message, the URL and a caret under the \
            problem on stderr, exit status 2.

            Example: odatastore parse "Products?$filter=Price gt 10" --metadata metadata.xml
            """)

    @Argument(help: "The URL: absolute, an absolute path, or relative to the service root.")
    var url: String

    @Option(help: "Check the request against this $metadata document (V2 or V4).")
    var metadata: String?

    @Option(name: .customLong("odata-version"), help: "Accept only this protocol version's syntax: 2 or 4 (default: the document's, or both).")
    var odataVersion: String?

    @Option(name: .customLong("service-root"), help: "The service root; absolute URLs must lie under it.")
    var serviceRoot: String?

    @Flag(name: .customLong("plus-as-space"), help: "Decode '+' as a space (default: a literal plus).")
    var plusAsSpace = false

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
            guard let bytes = readFile(path) else {
                writeError("error: cannot read \(path)")
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
            writeError("error: \(e.message) at position \(e.position)")
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

