@_exported import ODataProtocol
public let odataStoreBuild = 1
