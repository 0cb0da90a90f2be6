import Testing
import Foundation
@testable import ODataProtocol

/// Every multipart batch body in the fixtures: parsed structure (grouping, methods, URLs,
/// statuses, body sizes, Content-IDs) asserted as a compact summary.
@Suite struct BatchFixtureTests {
    static let cases: [(String, String, String)] = [
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/BinaryDataBatchRequest.txt", #"{PUT /Values(1)/BinaryType/$value[16]#1}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/ModificationOutsideChangesetbatch.txt", #"GET Customers(102)[0] ; POST Customers[100] ; GET Customers(102)[0] ; {POST Customers[100]#8} ; GET Customers(103)[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/NamedStreamRequest.txt", #"{POST /Values[334]#1} ; GET /Values(1)/Stream2[0] ; {POST /Values[334]#0 | PUT $0/Stream1[4]#2} ; GET /Values(2)[0] ; GET /Values(2)/Stream1[0] ; GET /Values[0] ; {DELETE /Values(1)[0]#3} ; GET /Values[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/PostFollowedByPutBatchRequest.txt", #"{POST /Customers[1102]#1 | PUT $1[466]#2 | PUT $1/BestFriend/$ref[79]#3 | POST $1/Orders/$ref[76]#4}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/TestBatchError.txt", #"{POST Customers[679]#1 | DELETE Orders(91)[0]#2 | DELETE Orders(1)[0]#3} ; {PATCH Orders(0)[431]#4}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/UriCompositionReproRequest.txt", #"{POST {InsertForwardSlash}Customers[691]#1 | DELETE {InsertForwardSlash}Orders(91)[0]#2 | DELETE {InsertForwardSlash}Orders(1)[0]#3} ; {PATCH {InsertForwardSlash}Orders(0)[444]#4}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/crossreferencebatch.txt", #"{POST Customers[681]#1 | POST $1/Orders[384]#3} ; {POST Customers[681]#5 | POST Customers[703]#6 | POST Orders[384]#7 | PUT $5/BestFriend/$ref[125]#8 | POST $5/Orders/$ref[125]#9}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/samplebatch.txt", #"{POST Customers[679]#1 | POST Orders[405]#2}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/samplebatch2.txt", #"{POST Customers[679]#1} ; GET Customers[0] ; {PATCH Orders(1)[435]#3} ; GET Orders(1)[0] ; {DELETE Orders(100)[0]#5} ; GET Orders[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidbatch2.txt", #"{POST Customers[679]#1} ; GET Customers[0] ; {PUT Orders[426]#3} ; GET Orders(1)[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidbatch3.txt", #"{POST Customers[619]#1} ; GET Customers[0] ; {PUT Orders[428]#3} ; GET Orders(1)[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidbatch4.txt", #"{POST Customers[695]#1} ; GET Customers[0] ; {PUT Orders[428]#3} ; GET Orders(1)[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidbatch5.txt", #"GET Orders(1001)[0]"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidbatch6.txt", #"{POST Customers[678]#1 | POST Orders[405]#2}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/samplejsonbatch.txt", #"{POST Customers[3755]#1 | POST Orders[41]#2}"#),
        ("request", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/serviceoperationrequest.txt", #"{POST /CreateCustomer()?id=55&name='foo'[0]#1} ; GET /GetCustomerByCity?city='Redmond'[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/batchContentIdReferencing.batch", #"{POST Employees[23]#1 | PUT $1/EmployeeName[41]#2}"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/batchContentIdReferencingForGet.batch", #"{POST Employees[23]#1 | PUT $1/EmployeeName[41]#2} ; GET $1[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/batchLarge.batch", #"GET Employees[0] ; GET Employees[0] ; GET Employees[0] ; {POST Employees[10122]#1 | POST Employees[10122]#1 | PUT Employees('1')[1327]#1} ; {POST Employees[10122]#1 | POST Employees[10122]#1 | PUT Employees('1')[1191]#1} ; {POST Employees[10122]#1 | POST Employees[10122]#1 | PUT Employees('1')[1191]#1} ; {POST Employees[10122]#1 | POST Employees[10122]#1 | PUT Employees('1')[1191]#1} ; {POST Employees[10122]#1 | POST Employees[10122]#1 | PUT Employees('1')[1191]#1}"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/batchRequest.batch", #"GET /service/Customers('ALFKI')[0] ; {POST /service/Customers[47] | PUT /service/Customers('ALFKI')[42]} ; GET service/Products[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/batchWithPost.batch", #"GET http://localhost/odata/Employees('2')/EmployeeName?$format=json[0] ; {PUT Employees('2')/EmployeeName[43]#changeRequest1} ; GET Employees('2')/EmployeeName?$format=json[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/basicBatchWithContentIdReferencing.batch", #"{POST Rooms[362]#2} ; {POST Rooms[362]#3} ; GET $2[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/basicBatchWithContentIdReferencingFail.batch", #"{POST Rooms[371]#2} ; {POST Rooms[362]#3} ; GET $2[0] ; GET $3[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/basicBatchWithContentIdWithNav.batch", #"{POST Rooms[220]#2} ; GET $2/nr_Building[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/basicBatchWithContentIdWithNavFail.batch", #"{POST Rooms[222]#2 | PUT $2/nr_Building[66]#3} ; GET $2/nr_Building[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/batchFailFirstCreateRequest.batch", #"{POST Employeess[0]#employee | PUT Employee('2')/EmployeeName[32]#AAA}"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/batchWithContentId.batch", #"{POST Employees[178]#newEmployee | PUT $newEmployee/EmployeeName[43]#2 | PUT $newEmployee/Age[12]#3} ; GET Employees('7')[0]#AAA"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/batchWithContentIdPart2.batch", #"GET Employees('2')/EmployeeName[0]#AAA ; {POST Employees[0]#employee | PUT $employee/EmployeeName[32]#AAA} ; GET Employees('7')/EmployeeName[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/batchWithWrongContentId.batch", #"{POST Employees[0]#employee | PUT $wrong/EmployeeName[32]#AAA}"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/changeset.batch", #"GET Employees('2')/EmployeeName[0] ; {PUT Employees('2')/EmployeeName[43]#putRequest} ; GET Employees('2')/EmployeeName[0]#getRequest"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/employeesWithFilter.batch", #"GET Employees?$filter=substringof('Walter',EmployeeName)[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/error.batch", #"GET $metadata[0] ; GET nonsens[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/functionImport.batch", #"GET ManagerPhoto?Id='1'[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/simple.batch", #"GET $metadata[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/simpleGet.batch", #"GET Employees('2')/$value[0]"#),
        ("request", "apache/olingo-odata2/odata2-lib/odata-fit/src/test/resources/simpleGet1.batch", #"GET Employees('7')/$value[0]"#),
        ("request", "apache/olingo-odata4/fit/src/test/resources/basicBatchPost.batch", #"GET ESAllPrim(32767)[0] ; {PUT ESAllPrim(32767)[30]#changeRequest1} ; GET ESAllPrim(32767)/PropertyString[0]"#),
        ("request", "apache/olingo-odata4/fit/src/test/resources/basicBatchPostWithPreferHeader.batch", #"GET ESAllPrim(32767)[0] ; {PUT ESAllPrim(32767)[30]#changeRequest1} ; GET ESAllPrim(32767)/PropertyString[0]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/BlobCustomersResponse.txt", #"{201[396]#2 204[0]#3 204[0]#4 204[0]#5 204[0]#6} 304[0] 304[0] 200[20] 200[76]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/BlobCustomersWithPreferResponse.txt", #"{201[396]#2 204[0]#3 200[396]#4 200[396]#5 204[0]#6} 304[0] 304[0] 200[20] 200[76]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/BlobItemsResponse.txt", #"{201[393]#2 204[0]#3 204[0]#4 204[0]#5 204[0]#6} 304[0] 304[0] 200[20] 200[76]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/ModificationOutsideChangesetresponse.txt", #"404[81] 201[372] 200[372] {201[372]#8} 200[372]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/NamedStreamResponse.txt", #"{201[1043]#1} 204[0] {201[1127]#0 204[0]#2} 200[1127] 200[4] 200[1988] {204[0]#3} 200[1277]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/UriCompositionErrorResponse.txt", #"{404[189]#2} {204[0]#4}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/UriCompositionSucessResponse.txt", #"{404[189]#2} {204[0]#4}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/crossreferenceresponse.txt", #"{201[355]#1 201[110]#3} {201[355]#5 201[387]#6 201[110]#7 204[0]#8 204[0]#9}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse.txt", #"{400[436]}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse1.txt", #"{} 400[392]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse2.txt", #"{201[355]#1} 200[1293] {405[263]#3} 200[104]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse3.txt", #"{400[317]#1} 200[994] {405[263]#3} 200[104]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse4.txt", #"{400[315]#1} {405[263]#3} 200[104]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse5.txt", #"404[189]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleinvalidresponse6.txt", #"{201[355]#1 201[108]#2}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/samplejsonresponse.txt", #"{201[3895]#1 201[108]#2}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleresponse.txt", #"{201[355]#1 201[108]#2}"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/sampleresponse2.txt", #"{201[355]#1} 200[1293] {400[362]#3} 200[104] {204[0]#5} 200[316]"#),
        ("response", "OData/odata.net/test/FunctionalTests/Tests/Data/ServerUnitTests/tests/BatchRequests/serviceoperationresponse.txt", #"{204[0]#1} 200[5210]"#),
        ("response", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/BatchResponseWithAdditionalLineEnding.batch", #"500[82]"#),
        ("response", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/BatchResponseWithLinesInBodyWin.batch", #"500[130]"#),
        ("response", "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/batchResponse.batch", #"{204[0]#1 201[918]#2} 200[13]#2"#),
        ("response", "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/communication/response/batch/batchResponse.batch", #"{204[0]#1 201[918]#2} 200[13]#2"#),
    ]

    static func summary(_ r: BatchRequest) -> String {
        r.items.map { item -> String in
            switch item {
            case .request(let p): return describe(p)
            case .changeset(let ps): return "{" + ps.map(describe).joined(separator: " | ") + "}"
            }
        }.joined(separator: " ; ")
    }

    static func describe(_ p: BatchRequestPart) -> String {
        "\(p.method) \(p.url)[\(p.body.count)]\(p.contentID.map { "#" + $0 } ?? "")"
    }

    static func summary(_ r: BatchResponse) -> String {
        r.items.map { item -> String in
            switch item {
            case .response(let p): return describe(p)
            case .changeset(let ps): return "{" + ps.map(describe).joined(separator: " ") + "}"
            }
        }.joined(separator: " ")
    }

    static func describe(_ p: BatchResponsePart) -> String {
        "\(p.status)[\(p.body.count)]\(p.contentID.map { "#" + $0 } ?? "")"
    }

    @Test(arguments: cases)
    func parsesFixture(_ kind: String, _ path: String, _ expected: String) throws {
        let bytes = try PayloadFixtures.bytes(path)
        if kind == "request" {
            let r = try BatchRequest.parse(bytes, contentType: nil)
            #expect(Self.summary(r) == expected)
            // Writing and re-reading keeps the structure.
            let (body, ct) = try r.encoded(boundary: "b_test")
            let back = try BatchRequest.parse(body, contentType: ct)
            #expect(Self.summary(back) == expected && back.requests.map(\.body) == r.requests.map(\.body))
        } else {
            let r = try BatchResponse.parse(bytes, contentType: nil)
            #expect(Self.summary(r) == expected)
            let (body, ct) = r.encoded(boundary: "b_test")
            let back = try BatchResponse.parse(body, contentType: ct)
            #expect(Self.summary(back) == expected && back.responses.map(\.body) == r.responses.map(\.body))
        }
    }
}
