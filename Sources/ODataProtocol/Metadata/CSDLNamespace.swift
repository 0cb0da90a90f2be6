/// XML namespaces of EDMX/CSDL documents, and how the parser classifies them.
enum CSDLNamespace {
    /// EDMX envelope of OData V1-V3 (`Version="1.0"`).
    static let edmxV1 = "http://schemas.microsoft.com/ado/2007/06/edmx"
    /// EDMX envelope of OData V4 (`Version="4.0"` / `"4.01"`).
    static let edmxV4 = "http://docs.oasis-open.org/odata/ns/edmx"
    /// CSDL namespace of OData V4.
    static let edmV4 = "http://docs.oasis-open.org/odata/ns/edm"
    /// CSDL namespaces used by V1-V3 documents: CSDL 1.0, 1.1, 1.2, 2.0 and 3.0.
    static let edmMicrosoft: Set<String> = [
        "http://schemas.microsoft.com/ado/2006/04/edm",
        "http://schemas.microsoft.com/ado/2007/05/edm",
        "http://schemas.microsoft.com/ado/2008/01/edm",
        "http://schemas.microsoft.com/ado/2008/09/edm",
        "http://schemas.microsoft.com/ado/2009/11/edm",
    ]
    /// Data-services metadata attributes (`m:DataServiceVersion`, `m:HttpMethod`, `m:HasStream`, ...).
    static let dataServicesMetadata = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    /// SAP Gateway annotations (`sap:creatable`, `sap:label`, ...).
    static let sap = "http://www.sap.com/Protocols/SAPData"

    static func isEDM(_ ns: String) -> Bool { ns == edmV4 || edmMicrosoft.contains(ns) }
    static func isEDMX(_ ns: String) -> Bool { ns == edmxV1 || ns == edmxV4 }
}
