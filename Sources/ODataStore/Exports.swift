// The Swift API re-exports the protocol layer's types by name: `import ODataStore` is enough
// for apps. Not the whole module: its `Operation`, `XMLDocument` and `XMLElement` would clash
// with Foundation's (an app that imports both could no longer write `Operation`), and its XML
// reader is an implementation detail. `ServiceOperation` names the first; `import
// ODataProtocol` gives everything. A public type added to ODataProtocol that ODataStore's API
// or its C layer uses must be added here.
import ODataProtocol
@_exported import enum ODataProtocol.ArgumentPrinter
@_exported import enum ODataProtocol.ArgumentValue
@_exported import struct ODataProtocol.BatchError
@_exported import struct ODataProtocol.BatchHeaders
@_exported import struct ODataProtocol.BatchRequest
@_exported import enum ODataProtocol.BatchRequestItem
@_exported import struct ODataProtocol.BatchRequestPart
@_exported import struct ODataProtocol.BatchResponse
@_exported import enum ODataProtocol.BatchResponseItem
@_exported import struct ODataProtocol.BatchResponsePart
@_exported import enum ODataProtocol.BinaryOperator
@_exported import class ODataProtocol.CanonicalDocument
@_exported import struct ODataProtocol.CanonicalFunction
@_exported import struct ODataProtocol.CanonicalJSONScanner
@_exported import struct ODataProtocol.CustomOption
@_exported import struct ODataProtocol.DecodedPayload
@_exported import enum ODataProtocol.EdmPrimitiveKind
@_exported import struct ODataProtocol.EntitySet
@_exported import struct ODataProtocol.EnumType
@_exported import enum ODataProtocol.ErrorBodyDecoder
@_exported import struct ODataProtocol.ExpandItem
@_exported import enum ODataProtocol.ExpandLevels
@_exported import enum ODataProtocol.ExpressionType
@_exported import struct ODataProtocol.FilterExpression
@_exported import enum ODataProtocol.FilterParser
@_exported import enum ODataProtocol.FilterPrinter
@_exported import struct ODataProtocol.FilterTypeChecker
@_exported import struct ODataProtocol.JSONError
@_exported import struct ODataProtocol.JSONObject
@_exported import struct ODataProtocol.JSONParseOptions
@_exported import enum ODataProtocol.JSONValue
@_exported import enum ODataProtocol.JSONWriter
@_exported import struct ODataProtocol.Lambda
@_exported import enum ODataProtocol.Literal
@_exported import enum ODataProtocol.LiteralPrinter
@_exported import struct ODataProtocol.MemberPath
@_exported import struct ODataProtocol.MetadataError
@_exported import enum ODataProtocol.MetadataParser
@_exported import struct ODataProtocol.NamedArgument
@_exported import struct ODataProtocol.NavigationProperty
@_exported import struct ODataProtocol.ODataErrorDetail
@_exported import enum ODataProtocol.ODataVersion
@_exported import struct ODataProtocol.OrderByItem
@_exported import struct ODataProtocol.ParameterAlias
@_exported import struct ODataProtocol.ParserLimits
@_exported import struct ODataProtocol.PathSegment
@_exported import enum ODataProtocol.PayloadDecoder
@_exported import enum ODataProtocol.PayloadEncoder
@_exported import struct ODataProtocol.PayloadError
@_exported import class ODataProtocol.PayloadSchema
@_exported import enum ODataProtocol.PayloadTarget
@_exported import struct ODataProtocol.QueryOptions
@_exported import enum ODataProtocol.RequestJSON
@_exported import enum ODataProtocol.RequestPrinter
@_exported import struct ODataProtocol.ResourceRequest
@_exported import struct ODataProtocol.ResourceRequestChecker
@_exported import struct ODataProtocol.ResourceRequestParser
@_exported import enum ODataProtocol.SegmentArguments
@_exported import struct ODataProtocol.SelectItem
@_exported import struct ODataProtocol.ServiceModel
@_exported import struct ODataProtocol.ServiceRoot
@_exported import struct ODataProtocol.StructuralProperty
@_exported import struct ODataProtocol.StructuredType
@_exported import enum ODataProtocol.TypeCompatibility
@_exported import enum ODataProtocol.TypeFunction
@_exported import struct ODataProtocol.TypeReference
@_exported import enum ODataProtocol.URLChecker
@_exported import struct ODataProtocol.URLParseError
@_exported import enum ODataProtocol.URLRedaction
@_exported import enum ODataProtocol.URLText
@_exported import enum ODataProtocol.UnaryOperator

/// A function or action of the service (`ODataProtocol.Operation`), under a name that does
/// not clash with Foundation's `Operation`.
public typealias ServiceOperation = ODataProtocol.Operation

/// Inside the module the protocol layer's name is kept (never visible outside it).
typealias Operation = ODataProtocol.Operation
