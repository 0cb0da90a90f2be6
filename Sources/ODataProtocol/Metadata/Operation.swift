/// A callable service operation, in one shape for V2 function imports and V4
/// functions/actions and their imports.
public struct Operation: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// V2 `FunctionImport` (HTTP method from `m:HttpMethod`, GET when absent).
        case functionImportV2
        /// V4 `Function` (side-effect free, called with GET).
        case function
        /// V4 `Action` (called with POST).
        case action
    }
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var type: TypeReference
        public init(name: String, type: TypeReference) { self.name = name; self.type = type }
    }

    public var kind: Kind
    /// Name as addressed in a URL: the import name for imports, the qualified name for bound V4 operations.
    public var name: String
    /// Namespace-qualified name of the V4 function/action (equal to `name` for V2 imports).
    public var qualifiedName: String
    public var isBound: Bool
    public var isComposable: Bool
    public var parameters: [Parameter]
    public var returnType: TypeReference?
    /// V2: `m:HttpMethod`; V4: "GET" for functions and "POST" for actions.
    public var httpMethod: String
    /// Entity set the result belongs to, if declared.
    public var entitySet: String?
    /// V4 `EntitySetPath` of a bound operation (e.g. `person/Friends`), as written.
    public var entitySetPath: String?
    /// SAP annotations of a V2 function import (e.g. `"action-for": "NS.Type"`).
    public var sapAnnotations: [String: String]

    public init(kind: Kind, name: String, qualifiedName: String, isBound: Bool = false,
                isComposable: Bool = false, parameters: [Parameter] = [], returnType: TypeReference? = nil,
                httpMethod: String, entitySet: String? = nil, entitySetPath: String? = nil,
                sapAnnotations: [String: String] = [:]) {
        self.kind = kind
        self.name = name
        self.qualifiedName = qualifiedName
        self.isBound = isBound
        self.isComposable = isComposable
        self.parameters = parameters
        self.returnType = returnType
        self.httpMethod = httpMethod
        self.entitySet = entitySet
        self.entitySetPath = entitySetPath
        self.sapAnnotations = sapAnnotations
    }

    /// V4 bound operations: the binding parameter (the first one).
    public var bindingParameter: Parameter? { isBound ? parameters.first : nil }
}
