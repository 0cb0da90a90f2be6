// Prints a digest of PayloadDecoder's output for many (body, model, version, set, target)
// combinations, one line each, so that two builds of the decoder can be compared byte for
// byte (bench/decode/check_outputs.sh runs it on every JSON fixture and on mutated copies).
// Usage: decode-check <metadata file>... < list of body files (one path a line)
import Foundation
import ODataProtocol

/// FNV-1a 64 over the bytes: a digest to compare runs, not a security measure.
func digest(_ bytes: some Sequence<UInt8>) -> String {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    return String(h, radix: 16)
}

var models: [(String, ServiceModel?, PayloadSchema?)] = [("-", nil, nil)]
for path in CommandLine.arguments.dropFirst() {
    guard let m = try? MetadataParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))) else {
        print("model \(path): does not parse"); continue
    }
    models.append((URL(fileURLWithPath: path).lastPathComponent, m, PayloadSchema(m)))
}

func describe(_ r: DecodedPayload) -> String {
    let ranges = r.entityRanges.map { $0.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",") } ?? "nil"
    return "\(digest(r.json.utf8)) n=\(r.json.utf8.count) count=\(r.count.map(String.init) ?? "nil") next=\(r.nextLink ?? "nil") delta=\(r.deltaLink ?? "nil") etag=\(r.etag ?? "nil") entities=\(r.entityCount) ranges=\(ranges)"
}

var lines = 0
while let path = readLine() {
    guard let body = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) else { continue }
    for (mname, model, schema) in models {
        var sets: [String?] = [nil]
        if let model { sets += model.entitySets.keys.sorted().map { Optional($0) } }
        for version in [ODataVersion.v2, .v4] {
            for set in sets {
                let type = set.flatMap { model?.entitySet($0)?.entityType }
                let variants: [(String, () throws -> DecodedPayload)] = [
                    ("auto", { try PayloadDecoder.decode(body, contentType: "application/json", version: version, model: model, entitySet: set) }),
                    ("download", { try PayloadDecoder.decode(body, contentType: "application/json", version: version, model: model,
                                                             entitySet: nil, entityType: type, target: .entities, schema: schema) }),
                ]
                for (vname, run) in variants {
                    if set == nil && vname == "download" && model != nil { continue }
                    var text: String
                    do { text = describe(try run()) } catch { text = "ERROR \(error)" }
                    print("\(path) | \(mname) | \(version) | \(set ?? "-") | \(vname) | \(text)")
                    lines += 1
                }
            }
        }
    }
}
FileHandle.standardError.write("decode-check: \(lines) lines\n".data(using: .utf8)!)
