/// A problem found while loading a `$metadata` (CSDL) document.
///
/// Thrown by `MetadataParser.parse` for documents it cannot load at all (`notWellFormed`,
/// `notMetadata`, `unsupportedVersion`), and collected in `ServiceModel.warnings` for
/// problems it tolerates (the other kinds) unless `MetadataParser.Options.strict` is set,
/// in which case the first of those is thrown. `line`/`column` are 1-based positions in the
/// document where known (the element's start tag for model problems).
public struct MetadataError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The bytes are not well-formed XML (or use a DTD); `xmlError` has libxml2's detail.
        case notWellFormed
        /// Well-formed XML, but not an EDMX document or a CSDL `Schema`.
        case notMetadata
        /// An EDMX/CSDL version this library does not read (e.g. `Version="5.0"`,
        /// `DataServiceVersion="4.0"` in an EDMX 1.0 envelope).
        case unsupportedVersion
        /// An element that lacks a required attribute or has an unusable value; it was skipped
        /// (or the value ignored). Also thrown, in any mode, for a type with more than
        /// `ServiceModel.maxInheritanceDepth` base types (the document is not loaded).
        case invalidElement
        /// A name that refers to nothing in the document: a type, association, role, entity
        /// set, navigation property or operation. Kept as written where that is still
        /// meaningful (a property type, a binding), dropped where it is not (a V2 navigation
        /// property whose association is unknown, an import of an unknown operation).
        case danglingReference
        /// A second declaration of a name already declared; the later one was ignored.
        case duplicateName
        /// A construct of the other protocol version (e.g. a V4 `Action` in an EDMX 1.0
        /// document); it was loaded as is.
        case versionMismatch
    }

    public var kind: Kind
    public var message: String
    public var line: Int?
    public var column: Int?
    /// The XML layer's error for `.notWellFormed`.
    public var xmlError: XMLError?

    public init(kind: Kind, message: String, line: Int? = nil, column: Int? = nil, xmlError: XMLError? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.xmlError = xmlError
    }

    init(_ xml: XMLError) {
        self.init(kind: .notWellFormed, message: xml.message,
                  line: xml.line > 0 ? xml.line : nil, column: xml.column > 0 ? xml.column : nil,
                  xmlError: xml)
    }

    public var description: String {
        var s = "$metadata"
        if let line {
            s += " line \(line)"
            if let column { s += ", column \(column)" }
        }
        return s + ": " + message
    }
}
