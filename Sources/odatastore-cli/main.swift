import ODataProtocol
for a in CommandLine.arguments.dropFirst() {
    do { let r = try ResourceRequestParser(version: .v4).parse(a); print(RequestPrinter.canonicalURL(r, version: .v4)) }
    catch { print(error) }
}
