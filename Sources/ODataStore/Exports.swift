// The Swift API re-exports the protocol layer: `import ODataStore` is enough for apps.
@_exported import ODataProtocol
