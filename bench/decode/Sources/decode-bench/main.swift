// Times the payload decoders on real pages. Usage:
//   decode-bench <name> <version 2|4> <content-type> <body file> <metadata file|-> <entity set|-> <iterations>
// Prints one JSON line per case: best and median seconds per decode, bytes, entities.
import Foundation
import ODataProtocol

let a = CommandLine.arguments
guard a.count == 8 else {
    FileHandle.standardError.write("usage: decode-bench name version content-type body metadata set iterations\n".data(using: .utf8)!)
    exit(2)
}
let name = a[1]
let version: ODataVersion = a[2] == "2" ? .v2 : .v4
let contentType = a[3]
let body = [UInt8](try Data(contentsOf: URL(fileURLWithPath: a[4])))
let model: ServiceModel? = a[5] == "-" ? nil : try MetadataParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: a[5]))))
let set: String? = a[6] == "-" ? nil : a[6]
let iterations = Int(a[7]) ?? 20

func measure(_ body: () throws -> Void) rethrows -> (best: Double, median: Double) {
    var times: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let d = try clock.measure(body)
        times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
    times.sort()
    return (times[0], times[times.count / 2])
}

// DECODE_PATH=download: the call the offline store's download makes for each page
// (Sources/ODataStore/Offline/Sync/Download.swift): entities of the set's type, with a
// PayloadSchema made once per model, as ServiceSession does.
let downloadPath = ProcessInfo.processInfo.environment["DECODE_PATH"] == "download"
let schema = model.map { PayloadSchema($0) }
let entityType: String? = downloadPath ? model?.entitySet(set ?? "")?.entityType : nil
func decodeOnce() throws -> DecodedPayload {
    if downloadPath {
        return try PayloadDecoder.decode(body, contentType: contentType, version: version, model: model, entitySet: nil,
                                         entityType: entityType, target: .entities, schema: schema)
    }
    return try PayloadDecoder.decode(body, contentType: contentType, version: version, model: model, entitySet: set)
}

var entities = 0
var outBytes = 0
for _ in 0..<2 {  // warm-up
    let r = try decodeOnce()
    entities = r.entityCount
    outBytes = r.utf8.count
}
let decode = try measure {
    let r = try decodeOnce()
    precondition(r.entityCount == entities)
}
var line = "{\"name\":\"\(name)\",\"bytes\":\(body.count),\"outBytes\":\(outBytes),\"entities\":\(entities),"
line += "\"decodeBest\":\(decode.best),\"decodeMedian\":\(decode.median)"
if downloadPath {
    // Nothing else: the tree alternatives are measured on the fixture pages.
} else if contentType.contains("json") && ProcessInfo.processInfo.environment["DECODE_ONLY"] == nil {
    // The alternative design: build a JSONValue tree, then write it (no typing at all).
    let tree = try measure {
        let v = try JSONValue.parse(body)
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        v.write(into: &out)
    }
    let parseOnly = try measure { _ = try JSONValue.parse(body) }
    line += ",\"treeBest\":\(tree.best),\"treeMedian\":\(tree.median),\"parseBest\":\(parseOnly.best),\"parseMedian\":\(parseOnly.median)"
} else if contentType.contains("xml") && ProcessInfo.processInfo.environment["DECODE_ONLY"] == nil {
    // The tree the Atom decoder used to build first: libxml2 into an XMLDocument, nothing typed.
    let parseOnly = try measure { _ = try ODataProtocol.XMLDocument.parse(body) }
    line += ",\"parseBest\":\(parseOnly.best),\"parseMedian\":\(parseOnly.median)"
}
print(line + "}")
