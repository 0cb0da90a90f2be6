import ODataProtocol

/// Turns a $metadata document into a `ServiceModel` for `parse --metadata`.
enum MetadataLoading {
    struct Failure: Error { var message: String }

    static func load(_ bytes: [UInt8]) -> Result<ServiceModel, Failure> {
        do {
            return .success(try MetadataParser.parse(bytes))
        } catch {
            return .failure(Failure(message: error.description))
        }
    }
}
