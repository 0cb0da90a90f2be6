import Testing
@testable import ODataStore

@Suite("Request URLs")
struct RequestURLTests {
    let root = "http://127.0.0.1:8080/odata/"

    @Test func joinsRelativePathsAndEncodesWhatURLsCannotCarry() throws {
        #expect(try RequestURL.make(serviceRoot: root, path: "Products(1)") == root + "Products(1)")
        #expect(try RequestURL.make(serviceRoot: "http://h/odata", path: "/Products") == "http://h/odata/Products")
        // Spaces as typed in OData documents, quotes kept, existing escapes kept.
        #expect(try RequestURL.make(serviceRoot: root, path: "TravelagencyCollection?$filter=CITY eq 'Rome'")
                == root + "TravelagencyCollection?$filter=CITY%20eq%20'Rome'")
        #expect(try RequestURL.make(serviceRoot: root, path: "Customers('PCT%2520')") == root + "Customers('PCT%2520')")
        // '+' is a literal plus in OData; servers that decode forms would read a space.
        #expect(try RequestURL.make(serviceRoot: root, path: "E?$filter=d eq 2012-12-03T07:16:23+01:00")
                == root + "E?$filter=d%20eq%202012-12-03T07:16:23%2B01:00")
        #expect(try RequestURL.make(serviceRoot: root, path: "Customers('ZOË')") == root + "Customers('ZO%C3%8B')")
        // A lone '%' is encoded rather than passed on as a broken escape.
        #expect(try RequestURL.make(serviceRoot: root, path: "A?x=5%") == root + "A?x=5%25")
    }

    @Test func acceptsFullURLsOnlyOnTheServiceHost() throws {
        #expect(try RequestURL.make(serviceRoot: root, path: "http://127.0.0.1:8080/odata/Products?$skiptoken=5")
                == "http://127.0.0.1:8080/odata/Products?$skiptoken=5")
        #expect(throws: ODataStoreError.self) { try RequestURL.make(serviceRoot: root, path: "http://evil.example/odata/Products") }
        #expect(throws: ODataStoreError.self) { try RequestURL.make(serviceRoot: root, path: "http://127.0.0.1:8081/odata/Products") }
        #expect(RequestURL.origin(of: "HTTPS://Host.Example:443/x") == "https://host.example")
        #expect(RequestURL.origin(of: "http://user@h:80/") == "http://h")
        // The host is not enough: the path must lie under the root's, without credentials.
        #expect(throws: ODataStoreError.self) { try RequestURL.make(serviceRoot: root, path: "http://127.0.0.1:8080/admin/secret") }
        #expect(throws: ODataStoreError.self) { try RequestURL.make(serviceRoot: root, path: "http://127.0.0.1:8080/odatax/P") }
        #expect(throws: ODataStoreError.self) { try RequestURL.make(serviceRoot: root, path: "http://u:p@127.0.0.1:8080/odata/P") }
        #expect(try RequestURL.make(serviceRoot: root, path: "http://127.0.0.1:8080/odata") == "http://127.0.0.1:8080/odata")
    }

    @Test func refusesDotSegmentsThatLibcurlWouldResolve() throws {
        for path in ["..", "../x", "a/../../x", "./a", "a/.", "%2e%2E/x", "a/.%2e", "a/..?$top=1", "/../x"] {
            #expect(throws: ODataStoreError.self, "\(path)") { try RequestURL.make(serviceRoot: root, path: path) }
        }
        for path in ["a..b", "...", "Customers('..')", "P?$filter=Name eq '../x'", "a/.b", ".x"] {
            #expect(throws: Never.self, "\(path)") { try RequestURL.make(serviceRoot: root, path: path) }
        }
        #expect(throws: ODataStoreError.self) { try RequestURL.make(serviceRoot: root, path: root + "a/../../b") }
    }
}

@Suite("Request validation")
struct RequestValidationTests {
    @Test func refusesMalformedPathsWithAPosition() {
        for (path, position) in [("Products(1", 10), ("Products)", 8), ("Products('x", 11), ("A\nB", 1), ("A#frag", 1)] {
            do {
                try RequestValidation.check(mode: .read, path: path, body: nil)
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.position == position, "\(path): \(error)")
            }
        }
        #expect(throws: Never.self) { try RequestValidation.check(mode: .read, path: "", body: nil) }  // the service document
        // The query part is the service's business: parentheses in a $filter string literal are fine.
        #expect(throws: Never.self) { try RequestValidation.check(mode: .read, path: "P?$filter=Name eq ')'", body: nil) }
        #expect(throws: Never.self) { try RequestValidation.check(mode: .read, path: "Customers('O''NEIL')", body: nil) }
    }

    @Test func checksBodiesAgainstTheMode() {
        #expect(throws: ODataStoreError.self) { try RequestValidation.check(mode: .create, path: "P", body: nil) }
        #expect(throws: ODataStoreError.self) { try RequestValidation.check(mode: .create, path: "P", body: "[1]") }
        #expect(throws: ODataStoreError.self) { try RequestValidation.check(mode: .update, path: "P(1)", body: "{\"a\":") }
        #expect(throws: ODataStoreError.self) { try RequestValidation.check(mode: .read, path: "P", body: "{}") }
        #expect(throws: ODataStoreError.self) { try RequestValidation.check(mode: .delete, path: "P(1)", body: "{}") }
        #expect(throws: Never.self) { try RequestValidation.check(mode: .function, path: "Discount", body: "{\"percent\":5}") }
        #expect(throws: Never.self) { try RequestValidation.check(mode: .updatePut, path: "P(1)", body: "{\"ID\":1}") }
    }
}

@Suite("Resource targets")
struct ResourceTargetTests {
    @Test func findsTheFirstSegmentAndWhetherThePathGoesFurther() {
        let a = ResourceTarget(path: "Products(1)/Category?$expand=x", serviceRoot: "http://h/")
        #expect(a.firstSegment == "Products")
        #expect(a.hasMoreSegments)
        let b = ResourceTarget(path: "http://h/Customers('a/b')?$top=1", serviceRoot: "http://h/")
        #expect(b.firstSegment == "Customers")
        #expect(!b.hasMoreSegments)
        #expect(ResourceTarget(path: "Products/$count", serviceRoot: "http://h/").isRawValue)
        #expect(!ResourceTarget(path: "Products", serviceRoot: "http://h/").isRawValue)
    }

    @Test func knowsTheMetadataDocument() {
        for path in ["$metadata", "/$metadata", "http://h/$metadata", "$metadata?sap-language=EN"] {
            #expect(ResourceTarget.isMetadata(path, serviceRoot: "http://h/"), "\(path)")
        }
        for path in ["$metadata/Products", "Products", "x$metadata", "$metadatax", "Products/$metadata"] {
            #expect(!ResourceTarget.isMetadata(path, serviceRoot: "http://h/"), "\(path)")
        }
    }
}

@Suite("RequestURL: stray percent signs")
struct StrayPercentTests {
    @Test func escapesOnlyPercentsThatStartNoEscape() {
        #expect(RequestURL.escapingStrayPercents("a%b_c").text == "a%25b_c")
        #expect(RequestURL.escapingStrayPercents("x%20y").text == "x%20y")
        #expect(RequestURL.escapingStrayPercents("%").text == "%25")
        #expect(RequestURL.escapingStrayPercents("%2").text == "%252")
        #expect(RequestURL.escapingStrayPercents("ü%zz%41").text == "ü%25zz%41")
        #expect(RequestURL.escapingStrayPercents("plain").escaped.isEmpty)
    }

    @Test func mapsPositionsBack() {
        let (text, escaped) = RequestURL.escapingStrayPercents("'%' eq %x or")
        #expect(text == "'%25' eq %25x or")
        // "or" starts at 13 in the result and at 9 in the input.
        #expect(RequestURL.originalPosition(13, escaped: escaped) == 9)
        #expect(RequestURL.originalPosition(0, escaped: escaped) == 0)
        #expect(RequestURL.originalPosition(4, escaped: escaped) == 2)
    }
}
