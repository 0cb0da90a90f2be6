import ODataStore
@_cdecl("ods_version_number")
public func ods_version_number() -> Int32 { 100 }
