import Testing
@testable import ODataProtocol

/// EDMX 1.0 documents (DataServiceVersion 1.0, 2.0 and 3.0). See MetadataTestSupport.swift
/// for how the expected numbers were obtained.
@Suite("Metadata: V2 documents")
struct MetadataV2Tests {
    @Test func gwsampleBasic() throws {
        let m = try MetadataParser.parse(MetadataFixture.gwsampleBasic.bytes())
        #expect(m.version == .v2 && m.declaredVersion == "2.0")
        #expect(m.namespaces == ["GWSAMPLE_BASIC"])
        #expect(m.containerName == "GWSAMPLE_BASIC_Entities")
        // xml.etree: 16 EntitySet, 16 EntityType, 2 ComplexType, 10 NavigationProperty, 5 FunctionImport
        #expect(m.entitySets.count == 16)
        #expect(m.entityTypeCount == 16)
        #expect(m.complexTypeCount == 2)
        #expect(m.navigationPropertyCount == 10)
        #expect(m.operationImports.count == 5)
        #expect(m.warnings.isEmpty)

        let item = try #require(m.entityType(ofSet: "SalesOrderLineItemSet"))
        #expect(item.key == ["SalesOrderID", "ItemPosition"])
        #expect(m.key(of: try #require(m.entityType(ofSet: "BusinessPartnerSet"))) == ["BusinessPartnerID"])

        // BusinessPartner.ToSalesOrders: association end ToRole has Multiplicity "*";
        // Principal BusinessPartnerID, Dependent CustomerID.
        let toOrders = try #require(m.nav("GWSAMPLE_BASIC.BusinessPartner", "ToSalesOrders"))
        #expect(toOrders.targetType == "GWSAMPLE_BASIC.SalesOrder" && toOrders.isCollection)
        #expect(toOrders.association == "GWSAMPLE_BASIC.Assoc_BusinessPartner_SalesOrders")
        #expect(constraintStrings(toOrders) == ["BusinessPartnerID->CustomerID"])
        #expect(toOrders.partner == "ToBusinessPartner")
        let back = try #require(m.nav("GWSAMPLE_BASIC.SalesOrder", "ToBusinessPartner"))
        #expect(back.targetType == "GWSAMPLE_BASIC.BusinessPartner" && !back.isCollection && !back.nullable)
        #expect(constraintStrings(back) == ["CustomerID->BusinessPartnerID"])
        // Bindings derived from the 20 association sets: the 10 navigation properties all bind.
        #expect(m.bindingCount == 10)
        #expect(m.navigationTarget(ofSet: "SalesOrderSet", path: "ToLineItems")?.name == "SalesOrderLineItemSet")
        #expect(m.entitySets["ProductSet"]?.navigationBindings["ToSupplier"] == "BusinessPartnerSet")

        // Facets and SAP annotations.
        let bpID = try #require(m.prop("GWSAMPLE_BASIC.BusinessPartner", "BusinessPartnerID"))
        #expect(bpID.type.name == "Edm.String" && bpID.type.maxLength == 10 && !bpID.type.nullable)
        #expect(bpID.sapAnnotations["label"] == "Bus. Part. ID" && bpID.sapAnnotations["creatable"] == "false")
        #expect(m.prop("GWSAMPLE_BASIC.BusinessPartner", "Address")?.type.name == "GWSAMPLE_BASIC.CT_Address")
        // xml.etree: 104 Property elements carry sap: attributes.
        let sapProps = m.types.values.flatMap(\.properties).filter { !$0.sapAnnotations.isEmpty }
        #expect(sapProps.count == 104)
        #expect(m.type("GWSAMPLE_BASIC.BusinessPartner")?.sapAnnotations["content-version"] == "1")
        // ConcurrencyMode="Fixed" on BusinessPartner/ChangedAt and Product/ChangedAt.
        let etagTypes = m.types.values.filter { m.hasETag($0) }.map(\.name).sorted()
        #expect(etagTypes == ["BusinessPartner", "Product"])
        #expect(m.concurrencyTokens(of: try #require(m.type("GWSAMPLE_BASIC.Product"))).map(\.name) == ["ChangedAt"])

        let confirm = try #require(m.operationImports["SalesOrder_Confirm"])
        #expect(confirm.kind == .functionImportV2 && confirm.httpMethod == "POST")
        #expect(confirm.returnType?.name == "GWSAMPLE_BASIC.SalesOrder" && confirm.returnType?.isCollection == false)
        #expect(confirm.entitySet == "SalesOrderSet")
        #expect(confirm.parameters.map(\.name) == ["SalesOrderID"])
        #expect(confirm.sapAnnotations["action-for"] == "GWSAMPLE_BASIC.SalesOrder")
        #expect(m.entitySets["BusinessPartnerSet"]?.sapAnnotations["content-version"] == "1")
    }

    @Test func rmtSampleFlight() throws {
        let m = try MetadataParser.parse(MetadataFixture.rmtSampleFlight.bytes())
        #expect(m.version == .v2 && m.declaredVersion == "2.0")
        // xml.etree: 9 EntitySet, 8 EntityType, 3 ComplexType, 5 NavigationProperty, 5 FunctionImport
        #expect(m.entitySets.count == 9)
        #expect(m.entityTypeCount == 8)
        #expect(m.complexTypeCount == 3)
        #expect(m.navigationPropertyCount == 5)
        #expect(m.operationImports.count == 5)
        #expect(m.warnings.isEmpty)

        let flight = try #require(m.entityType(ofSet: "FlightCollection"))
        #expect(flight.key == ["carrid", "connid", "fldate"])
        #expect(m.key(of: try #require(m.entityType(ofSet: "BookingCollection"))) == ["carrid", "connid", "fldate", "bookid"])
        #expect(m.keyProperties(of: flight).map(\.property.type.name) == ["Edm.String", "Edm.String", "Edm.DateTime"])
        #expect(m.type("RMTSAMPLEFLIGHT.Carrier")?.hasStream == true)
        #expect(m.types.values.filter(\.hasStream).count == 1)
        // Derived complex type FlightAvailability2.
        let derived = m.derivedTypes(of: "RMTSAMPLEFLIGHT.FlightAvailability").map(\.name)
        #expect(derived == ["FlightAvailability2"])

        // Flight.FlightCarrier: FromRole ToRole_CarrierToFlight -> Carrier end, Multiplicity 1.
        let carrier = try #require(m.nav("RMTSAMPLEFLIGHT.Flight", "FlightCarrier"))
        #expect(carrier.targetType == "RMTSAMPLEFLIGHT.Carrier" && !carrier.isCollection && !carrier.nullable)
        #expect(carrier.referentialConstraints.isEmpty)
        #expect(carrier.partner == "carrierFlights")
        let bookings = try #require(m.nav("RMTSAMPLEFLIGHT.Flight", "flightBookings"))
        #expect(bookings.targetType == "RMTSAMPLEFLIGHT.Booking" && bookings.isCollection)
        #expect(constraintStrings(bookings) == ["carrid->carrid", "connid->connid", "fldate->fldate"])
        let booked = try #require(m.nav("RMTSAMPLEFLIGHT.Booking", "bookedFlight"))
        #expect(booked.targetType == "RMTSAMPLEFLIGHT.Flight" && booked.partner == "flightbooking")
        #expect(m.navigationTarget(ofSet: "CarrierCollection", path: "carrierFlights")?.name == "FlightCollection")
        #expect(m.navigationTarget(ofSet: "BookingCollection", path: "bookedFlight")?.name == "FlightCollection")
        #expect(m.bindingCount == 5)

        // Facets: Decimal with Scale 14, Edm.Time, DateTime Precision 0, ConcurrencyMode.
        let amount = try #require(m.prop("RMTSAMPLEFLIGHT.Booking", "FORCURAM"))
        #expect(amount.type.name == "Edm.Decimal" && amount.type.precision == 15 && amount.type.scale == 14)
        #expect(amount.sapAnnotations["unit"] == "FORCURKEY")
        let orderDate = try #require(m.prop("RMTSAMPLEFLIGHT.Booking", "ORDER_DATE"))
        #expect(orderDate.concurrencyToken && orderDate.type.precision == 0)
        #expect(m.hasETag(try #require(m.type("RMTSAMPLEFLIGHT.Booking"))))
        #expect(!m.hasETag(flight))
        #expect(m.prop("RMTSAMPLEFLIGHT.FlightDetails", "departureTime")?.type.primitiveKind == .time)
        // xml.etree: 116 Property elements carry sap: attributes.
        #expect(m.types.values.flatMap(\.properties).filter { !$0.sapAnnotations.isEmpty }.count == 116)

        let update = try #require(m.operationImports["UpdateAgencyPhoneNo"])
        #expect(update.httpMethod == "PUT" && update.entitySet == "TravelagencyCollection")
        #expect(update.parameters.map(\.name) == ["agency_id", "telephone"])
        let available = try #require(m.operationImports["GetAvailableFlights"])
        #expect(available.httpMethod == "GET")
        #expect(available.returnType == TypeReference(name: "RMTSAMPLEFLIGHT.Flight", isCollection: true))
        #expect(available.parameters.map(\.type.name) == ["Edm.DateTime", "Edm.DateTime", "Edm.String", "Edm.String"])
    }

    @Test func refScenario() throws {
        let m = try MetadataParser.parse(MetadataFixture.refScenario.bytes())
        #expect(m.version == .v2 && m.declaredVersion == "2.0")
        #expect(m.namespaces == ["RefScenario", "RefScenario2"])
        // xml.etree: 22 EntityType, 2 ComplexType, 21 EntitySet (20 in Container1, Photos in
        // Container2), 8 NavigationProperty, 7 FunctionImport.
        #expect(m.entityTypeCount == 22)
        #expect(m.complexTypeCount == 2)
        #expect(m.entitySets.count == 21)
        #expect(m.navigationPropertyCount == 8)
        #expect(m.operationImports.count == 7)
        #expect(m.warnings.isEmpty)
        // Container1 is m:IsDefaultEntityContainer; Container2's set keeps its V2 URL form.
        #expect(m.containerName == "Container1")
        #expect(m.entitySets["Container2.Photos"]?.entityType == "RefScenario2.Photo")
        #expect(m.entitySets["Photos"] == nil)

        // Inheritance: Manager derives from Employee, Team and Room from Base (no own key).
        let manager = try #require(m.entityType(ofSet: "Managers"))
        #expect(manager.baseType == "RefScenario.Employee" && manager.key.isEmpty)
        #expect(m.key(of: manager) == ["EmployeeId"])
        #expect(m.allProperties(of: manager).count == 9)
        #expect(m.allNavigationProperties(of: manager).map(\.name) == ["ne_Manager", "ne_Team", "ne_Room", "nm_Employees"])
        #expect(m.isType("RefScenario.Manager", derivedFrom: "RefScenario.Employee"))
        #expect(m.key(of: try #require(m.type("RefScenario2.Photo"))) == ["Id", "Type"])
        // xml.etree: 18 types with m:HasStream="true".
        #expect(m.types.values.filter(\.hasStream).count == 18)
        // ConcurrencyMode="Fixed": Room/Version, Photo/Id.
        let room = try #require(m.entityType(ofSet: "Rooms"))
        #expect(m.concurrencyTokens(of: room).map(\.name) == ["Version"])
        #expect(m.prop("RefScenario.Base", "Id")?.defaultValue == "1")
        #expect(m.prop("RefScenario.Employee", "TeamId")?.type.maxLength == 2)
        #expect(m.prop("RefScenario2.Photo", "Содержание")?.type.name == "Edm.String")

        let ne = try #require(m.nav("RefScenario.Employee", "ne_Manager"))
        #expect(ne.targetType == "RefScenario.Manager" && !ne.isCollection && !ne.nullable)
        #expect(ne.partner == "nm_Employees")
        #expect(m.nav("RefScenario.Building", "nb_Rooms")?.isCollection == true)
        // Bindings: Employees -> Managers/Teams/Rooms, and the inherited ones of Managers.
        #expect(m.entitySets["Employees"]?.navigationBindings ==
                ["ne_Manager": "Managers", "ne_Team": "Teams", "ne_Room": "Rooms"])
        #expect(m.entitySets["Managers"]?.navigationBindings["nm_Employees"] == "Employees")
        #expect(m.entitySets["Rooms"]?.navigationBindings == ["nr_Employees": "Employees", "nr_Building": "Buildings"])

        let search = try #require(m.operationImports["EmployeeSearch"])
        #expect(search.returnType?.csdlName == "Collection(RefScenario.Employee)")
        #expect(search.entitySet == "Employees" && search.httpMethod == "GET")
        #expect(search.parameters == [.init(name: "q", type: TypeReference(name: "Edm.String"))])
        #expect(m.operationImports["AllUsedRoomIds"]?.returnType?.csdlName == "Collection(Edm.String)")
        #expect(m.operationImports["ManagerPhoto"]?.parameters.first?.type.nullable == false)
    }

    @Test func pyodataExample() throws {
        let m = try MetadataParser.parse(MetadataFixture.pyodataExample.bytes())
        #expect(m.version == .v2 && m.declaredVersion == "2.0")
        // xml.etree: 14 EntitySet (in two containers both named EXAMPLE_SRV and both marked
        // default: merged), 14 EntityType, 4 ComplexType, 2 EnumType (6 Member), 4
        // NavigationProperty, 6 FunctionImport.
        #expect(m.entitySets.count == 14)
        #expect(m.entityTypeCount == 14)
        #expect(m.complexTypeCount == 4)
        #expect(m.enumTypes.count == 2)
        #expect(m.enumTypes.values.reduce(0) { $0 + $1.members.count } == 6)
        #expect(m.navigationPropertyCount == 4)
        #expect(m.operationImports.count == 6)
        #expect(m.containerName == "EXAMPLE_SRV")
        // The V4 reference's alias is known; the V4 Annotations blocks are skipped.
        #expect(m.referencedNamespaces == ["com.sap.vocabularies.Common.v1"])
        #expect(m.aliases["Common"] == "com.sap.vocabularies.Common.v1")

        // Tolerated: EnumType is a V4 construct; EnumTest declares no key.
        #expect(m.warnings(.versionMismatch).count == 1)
        #expect(m.warnings(.invalidElement).map(\.message) == ["entity type EXAMPLE_SRV.EnumTest has no key"])
        #expect(m.warnings.count == 2)

        // Unqualified names resolve: EntityType="Employee" in schema EXAMPLE_SRV_SETS,
        // Type="Country", ReturnType="TemperatureMeasurement" (declared in the other schema).
        #expect(m.entitySets["Employees"]?.entityType == "EXAMPLE_SRV_SETS.Employee")
        #expect(m.prop("EXAMPLE_SRV.EnumTest", "CountryOfOrigin")?.type.name == "EXAMPLE_SRV.Country")
        #expect(m.operationImports["get_max"]?.returnType?.name == "EXAMPLE_SRV.TemperatureMeasurement")

        // Enums without values get implicit ones; IsFlags="True" is read case-insensitively.
        let country = try #require(m.enumType("EXAMPLE_SRV.Country"))
        #expect(country.members.map(\.name) == ["USA", "China", "Slovakia"])
        #expect(country.members.map(\.value) == [0, 1, 2])
        #expect(!country.isFlags)
        #expect(m.enumTypes["EXAMPLE_SRV.Language"]?.isFlags == true)

        #expect(m.entitySets["CitiesNotAddressable"]?.sapAnnotations["addressable"] == "false")
        #expect(m.entitySets["Cars"]?.sapAnnotations["pageable"] == "false")
        #expect(m.key(of: try #require(m.entityType(ofSet: "TemperatureMeasurements"))) == ["Sensor", "Date"])
        let price = try #require(m.prop("EXAMPLE_SRV.Car", "Price"))
        #expect(price.type.precision == 7 && price.type.scale == 3)
        #expect(m.prop("EXAMPLE_SRV.MasterEntity", "Data")?.type.maxLengthIsMax == true)
        #expect(m.type("EXAMPLE_SRV.CarIDPic")?.hasStream == true)

        let orders = try #require(m.nav("EXAMPLE_SRV.Customer", "Orders"))
        #expect(orders.targetType == "EXAMPLE_SRV.Order" && orders.isCollection)
        #expect(constraintStrings(orders) == ["Name->Owner"])
        // CustomerReferredBy has Principal/Dependent without a ReferentialConstraint wrapper: no constraint.
        let referred = try #require(m.nav("EXAMPLE_SRV.Customer", "ReferredBy"))
        #expect(referred.targetType == "EXAMPLE_SRV.Customer" && !referred.isCollection && referred.nullable)
        #expect(referred.referentialConstraints.isEmpty)
        #expect(m.navigationTarget(ofSet: "Customers", path: "ReferredBy")?.name == "Customers")
        #expect(m.navigationTarget(ofSet: "Employees", path: "Addresses")?.name == "Addresses")
        #expect(m.bindingCount == 4)
        #expect(m.operationImports["refresh"]?.returnType == nil)
        #expect(m.operationImports["retrieve"]?.sapAnnotations["action-for"] == "EXAMPLE_SRV.MasterEntity")
    }

    @Test func odataDemo() throws {
        let m = try MetadataParser.parse(MetadataFixture.odataDemoV2.bytes())
        // xml.etree: 3 EntitySet, 3 EntityType, 1 ComplexType, 4 NavigationProperty, 1 FunctionImport
        #expect((m.entitySets.count, m.entityTypeCount, m.complexTypeCount) == (3, 3, 1))
        #expect(m.navigationPropertyCount == 4 && m.operationImports.count == 1)
        #expect(m.warnings.isEmpty)
        #expect(m.nav("ODataDemo.Product", "Category")?.targetType == "ODataDemo.Category")
        #expect(m.nav("ODataDemo.Product", "Category")?.nullable == true)  // Multiplicity 0..1
        #expect(m.nav("ODataDemo.Supplier", "Products")?.isCollection == true)
        #expect(m.entitySets["Products"]?.navigationBindings == ["Category": "Categories", "Supplier": "Suppliers"])
        #expect(m.hasETag(try #require(m.entityType(ofSet: "Suppliers"))))
        #expect(m.prop("ODataDemo.Supplier", "Address")?.type.name == "ODataDemo.Address")
        let byRating = try #require(m.operationImports["GetProductsByRating"])
        #expect(byRating.returnType?.csdlName == "Collection(ODataDemo.Product)")
        #expect(byRating.parameters.map(\.type.name) == ["Edm.Int32"])
    }

    @Test func northwindV2AndV3() throws {
        for fixture in [MetadataFixture.northwindV2, .northwindV3] {
            let m = try MetadataParser.parse(fixture.bytes())
            #expect(m.version == .v2)
            // xml.etree: 26 EntitySet, 26 EntityType, 22 NavigationProperty, 2 Schema
            #expect(m.entitySets.count == 26 && m.entityTypeCount == 26 && m.complexTypeCount == 0)
            #expect(m.navigationPropertyCount == 22 && m.operationImports.isEmpty)
            #expect(m.namespaces.count == 2 && m.containerName == "NorthwindEntities")
            #expect(m.warnings.isEmpty)
            // Every navigation property is bound through the 11 association sets.
            #expect(m.bindingCount == 22)
            #expect(Set(m.key(of: try #require(m.entityType(ofSet: "Order_Details")))) == ["OrderID", "ProductID"])
            #expect(m.prop("NorthwindModel.Category", "Description")?.type.maxLengthIsMax == true)
            // xml.etree: 6 properties with MaxLength="Max".
            #expect(m.types.values.flatMap(\.properties).filter(\.type.maxLengthIsMax).count == 6)
            let employee1 = try #require(m.nav("NorthwindModel.Employee", "Employee1"))
            #expect(employee1.targetType == "NorthwindModel.Employee" && !employee1.isCollection)
            #expect(constraintStrings(employee1) == ["ReportsTo->EmployeeID"])
        }
        // The "V3" Northwind declares DataServiceVersion 1.0 and MaxDataServiceVersion 3.0.
        let v3 = try MetadataParser.parse(MetadataFixture.northwindV3.bytes())
        #expect(v3.declaredVersion == "1.0" && v3.maxDataServiceVersion == "3.0")
        #expect(try MetadataParser.parse(MetadataFixture.northwindV2.bytes()).declaredVersion == "1.0")
    }

    @Test func dataServiceVersion3MapsToV2() throws {
        let xml = """
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
              <edmx:DataServices m:DataServiceVersion="3.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
                <Schema Namespace="V3" xmlns="http://schemas.microsoft.com/ado/2009/11/edm">
                  <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
                    <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
                    <Property Name="Tags" Type="Collection(Edm.String)"/>
                  </EntityType>
                  <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
                    <EntitySet Name="Ts" EntityType="V3.T"/>
                    <FunctionImport Name="Touch" IsSideEffecting="true" IsBindable="true">
                      <Parameter Name="t" Type="V3.T"/>
                    </FunctionImport>
                  </EntityContainer>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """
        let m = try MetadataParser.parse(xml)
        #expect(m.version == .v2 && m.declaredVersion == "3.0")
        #expect(m.prop("V3.T", "Tags")?.type == TypeReference(name: "Edm.String", isCollection: true))
        let touch = try #require(m.operationImports["Touch"])
        #expect(touch.httpMethod == "POST" && touch.isBound && touch.returnType == nil)
        #expect(m.warnings.isEmpty)
    }
}
