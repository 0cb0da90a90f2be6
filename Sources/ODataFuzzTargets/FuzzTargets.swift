import ODataProtocol
import ODataStore

/// The fuzz targets (issue 10): each takes arbitrary bytes and must never trap, hang or grow
/// without bound. Driven by libFuzzer in `odatastore-fuzz` (scripts/fuzz.sh) and replayed over
/// the regression inputs in Tests/fuzz by the Swift tests.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A request URL (resource path, query options, `$filter`), alone and checked against a model.
    case url
    /// A `$metadata` document, CSDL XML or JSON.
    case csdl
    /// A V4 JSON payload, typed by a model and untyped; typed also with spans (`SpansCheck`).
    case json4
    /// A V2 JSON (verbose) payload, typed and untyped; typed also with spans (`SpansCheck`).
    case json2
    /// An Atom/XML payload (V2 Atom, V4 Atom refused, error bodies).
    case atom
    /// A `$batch` response (multipart or JSON) and request.
    case batch
    /// A whole HTTP response (status line, headers, body) through the online store's handling.
    case http
    /// A JSON page cut into pieces by `PageSplitter` (V4 and V2), its runs and envelope
    /// decoded: when both the split and the whole-page decode succeed they find as many entities;
    /// and the same pieces fed to `ReferencePageSplitter` (the byte loop it replaced) give the
    /// same runs, envelope, counters and errors.
    case split
}

public enum FuzzTargets {
    /// The model the decoders are typed with: sets with keys of several types, a navigation
    /// both ways, complex and collection properties (the V4 test service has none).
    static let model: ServiceModel? = try? MetadataParser.parse(Array(modelXML.utf8))

    public static func run(_ target: FuzzTarget, _ bytes: [UInt8]) {
        switch target {
        case .url:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = URLChecker.check(text, model: nil, version: nil, serviceRoot: "http://h/svc/")
            _ = URLChecker.check(text, model: model, version: .v4, serviceRoot: nil)
            _ = URLChecker.check(text, model: nil, version: .v2, serviceRoot: nil, plusAsSpace: true)
        case .csdl:
            _ = try? MetadataParser.parse(bytes)
        case .json4:
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: .v4, model: model, entitySet: "Items")
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: .v4, model: nil, entitySet: nil)
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: .v4, model: model, entitySet: nil,
                                           target: .value(nil))
            SpansCheck.run(bytes, version: .v4, model: model)
        case .json2:
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: .v2, model: model, entitySet: "Items")
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: .v2, model: nil, entitySet: nil)
            SpansCheck.run(bytes, version: .v2, model: model)
        case .atom:
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/atom+xml", version: .v2, model: model, entitySet: "Items")
            _ = try? PayloadDecoder.decode(bytes, contentType: "application/xml", version: .v2, model: nil, entitySet: nil)
            _ = ErrorBodyDecoder.decode(bytes, contentType: "application/xml")
        case .batch:
            let boundary = "multipart/mixed; boundary=batch_1"
            _ = try? BatchResponse.parse(bytes, contentType: boundary)
            _ = try? BatchRequest.parse(bytes, contentType: boundary)
            _ = try? BatchResponse.parseJSON(bytes)
        case .http:
            FuzzEntryPoints.httpResponse(bytes, model: model, version: .v4)
            FuzzEntryPoints.httpResponse(bytes, model: nil, version: .v2)
        case .split:
            for version in [ODataVersion.v4, .v2] {
                split(bytes, version: version)
                splitLikeTheReference(bytes, version: version)
            }
        }
    }

    /// Feeds `bytes` to a `PageSplitter` in pieces (sizes from the bytes themselves), decodes
    /// each run and the envelope, and compares the entities found with the whole-page decode.
    static func split(_ bytes: [UInt8], version: ODataVersion) {
        func decode(_ b: [UInt8]) -> DecodedPayload? {
            try? PayloadDecoder.decode(b, contentType: "application/json", version: version, model: model,
                                       entitySet: "Items", target: .entities)
        }
        var s = PageSplitter(version: version, maxHeldBytes: 1 << 16)
        var entities = 0
        var from = 0
        var step = 1
        do {
            while from < bytes.count {
                step = Int(bytes[from] % 7) + step % 5 + 1
                let end = min(from + step, bytes.count)
                try bytes[from..<end].withUnsafeBytes { try s.feed($0) }
                from = end
                if s.readyBytes >= 64, let run = s.takeChunk() {
                    guard let p = decode(run.document) else { return }
                    entities += p.entityCount
                }
            }
            if let run = s.takeChunk() {
                guard let p = decode(run.document) else { return }
                entities += p.entityCount
            }
            guard let envelope = decode(try s.finish()) else { return }
            entities += envelope.entityCount
        } catch {
            return
        }
        if let whole = decode(bytes), whole.entityCount != entities {
            fatalError("split: \(entities) entities in the runs, \(whole.entityCount) in the whole page")
        }
    }

    /// `PageSplitter` and `ReferencePageSplitter` (the byte loop it replaced) fed `bytes` in
    /// the same pieces (sizes from the bytes themselves), with the default limits and with
    /// small ones (so the limits' errors come often): they must say the same in every way.
    static func splitLikeTheReference(_ bytes: [UInt8], version: ODataVersion) {
        var cuts: [Int] = []
        var at = 0
        var step = 1
        while at < bytes.count {
            step = Int(bytes[at] % 97) + step % 13 + 1
            at += step
            cuts.append(at)
        }
        for (maxHeld, maxDepth, takeAt) in [(1 << 16, PayloadDecoder.maxDepth + 2, 64), (300, 6, 0)] {
            if let difference = SplitterDifferential.firstDifference(bytes, version: version, cuts: cuts, takeAt: takeAt,
                                                                     maxHeldBytes: maxHeld, maxDepth: maxDepth) {
                fatalError("split: PageSplitter differs from the reference (\(version), limits \(maxHeld)/\(maxDepth)): \(difference)")
            }
        }
    }

    static let modelXML = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
         <edmx:DataServices>
          <Schema Namespace="F" xmlns="http://docs.oasis-open.org/odata/ns/edm">
           <ComplexType Name="Address"><Property Name="Street" Type="Edm.String"/><Property Name="Geo" Type="Collection(Edm.Double)"/></ComplexType>
           <EntityType Name="Item">
            <Key><PropertyRef Name="Id"/></Key>
            <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
            <Property Name="Big" Type="Edm.Int64"/><Property Name="Price" Type="Edm.Decimal" Scale="2"/>
            <Property Name="When" Type="Edm.DateTimeOffset"/><Property Name="Day" Type="Edm.Date"/>
            <Property Name="G" Type="Edm.Guid"/><Property Name="Raw" Type="Edm.Binary"/><Property Name="On" Type="Edm.Boolean"/>
            <Property Name="D" Type="Edm.Double"/><Property Name="Home" Type="F.Address"/>
            <Property Name="Tags" Type="Collection(Edm.String)"/><Property Name="Places" Type="Collection(F.Address)"/>
            <NavigationProperty Name="Group" Type="F.Group" Partner="Items"/>
           </EntityType>
           <EntityType Name="Group">
            <Key><PropertyRef Name="Code"/><PropertyRef Name="No"/></Key>
            <Property Name="Code" Type="Edm.String" Nullable="false"/><Property Name="No" Type="Edm.Int16" Nullable="false"/>
            <NavigationProperty Name="Items" Type="Collection(F.Item)" Partner="Group"/>
           </EntityType>
           <Function Name="Top"><Parameter Name="n" Type="Edm.Int32"/><ReturnType Type="Collection(F.Item)"/></Function>
           <EntityContainer Name="C">
            <EntitySet Name="Items" EntityType="F.Item"><NavigationPropertyBinding Path="Group" Target="Groups"/></EntitySet>
            <EntitySet Name="Groups" EntityType="F.Group"><NavigationPropertyBinding Path="Items" Target="Items"/></EntitySet>
            <FunctionImport Name="Top" Function="F.Top" EntitySet="Items"/>
           </EntityContainer>
          </Schema>
         </edmx:DataServices>
        </edmx:Edmx>
        """
}
