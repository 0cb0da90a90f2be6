import Testing
@testable import ODataProtocol

private let tripPinNS = "Microsoft.OData.SampleService.Models.TripPin"

/// OASIS EDMX 4.0/4.01 documents. See MetadataTestSupport.swift for how the expected
/// numbers were obtained.
@Suite("Metadata: V4 documents")
struct MetadataV4Tests {
    @Test(arguments: [MetadataFixture.tripPinOASIS, .tripPinOlingo])
    func tripPin(_ fixture: MetadataFixture) throws {
        let m = try MetadataParser.parse(fixture.bytes())
        #expect(m.version == .v4 && m.declaredVersion == "4.0")
        #expect(m.namespaces == [tripPinNS] && m.containerName == "DefaultContainer")
        // xml.etree: 9 EntityType, 4 ComplexType, 1 EnumType (3 Member), 4 EntitySet + 1
        // Singleton, 8 NavigationProperty, 12 NavigationPropertyBinding, 4 Function + 2
        // Action, 1 FunctionImport + 1 ActionImport.
        #expect(m.entityTypeCount == 9 && m.complexTypeCount == 4)
        #expect(m.entitySets.count == 5)
        #expect(m.entitySets.values.filter(\.isSingleton).map(\.name) == ["Me"])
        #expect(m.navigationPropertyCount == 8)
        #expect(m.bindingCount == 12)
        #expect(m.operationCount == 6 && m.operations.count == 6)
        #expect(m.operationImports.count == 2)
        #expect(m.warnings.isEmpty)

        let gender = try #require(m.enumType("\(tripPinNS).PersonGender"))
        #expect(gender.members.map(\.name) == ["Male", "Female", "Unknown"])
        #expect(gender.members.map(\.value) == [0, 1, 2])
        #expect(gender.underlyingType == "Edm.Int32" && !gender.isFlags)

        // Inheritance and open types: Flight -> PublicTransportation -> PlanItem (key PlanItemId).
        let flight = try #require(m.type("\(tripPinNS).Flight"))
        #expect(flight.key.isEmpty && m.key(of: flight) == ["PlanItemId"])
        #expect(m.lineage(of: flight).map(\.name) == ["Flight", "PublicTransportation", "PlanItem"])
        #expect(m.type("\(tripPinNS).Person")?.isOpen == true)
        #expect(m.type("\(tripPinNS).Location")?.isOpen == true)
        #expect(m.type("\(tripPinNS).EventLocation")?.baseType == "\(tripPinNS).Location")
        #expect(m.derivedTypes(of: "\(tripPinNS).PlanItem").map(\.name) == ["Event", "Flight", "PublicTransportation"])
        #expect(m.type("\(tripPinNS).Photo")?.hasStream == true)

        let friends = try #require(m.nav("\(tripPinNS).Person", "Friends"))
        #expect(friends.targetType == "\(tripPinNS).Person" && friends.isCollection && friends.partner == nil)
        let trips = try #require(m.nav("\(tripPinNS).Person", "Trips"))
        #expect(trips.containsTarget && trips.isCollection)
        let from = try #require(m.nav("\(tripPinNS).Flight", "From"))
        #expect(from.targetType == "\(tripPinNS).Airport" && !from.isCollection && !from.nullable)

        let people = try #require(m.entitySets["People"])
        #expect(people.navigationBindings["Friends"] == "People")
        #expect(people.navigationBindings["\(tripPinNS).Flight/Airline"] == "Airlines")
        #expect(m.navigationTarget(ofSet: "Me", path: "Photo")?.name == "Photos")
        #expect(m.entitySets["Me"]?.isSingleton == true && m.entityType(ofSet: "Me")?.name == "Person")

        // Properties: collections of complex types, enum-typed, geo, facets.
        #expect(m.prop("\(tripPinNS).Person", "AddressInfo")?.type == TypeReference(name: "\(tripPinNS).Location", isCollection: true))
        #expect(m.prop("\(tripPinNS).Person", "Gender")?.type.name == "\(tripPinNS).PersonGender")
        #expect(m.prop("\(tripPinNS).Person", "Emails")?.type.csdlName == "Collection(Edm.String)")
        #expect(m.prop("\(tripPinNS).Airport", "Location")?.type.name == "\(tripPinNS).AirportLocation")
        #expect(m.primitiveKind(of: try #require(m.prop("\(tripPinNS).AirportLocation", "Loc")).type.name) == .geography)

        // Operations: bound functions (composable, EntitySetPath), unbound function, actions.
        let fav = try #require(m.operations["\(tripPinNS).GetFavoriteAirline"]?.first)
        #expect(fav.kind == .function && fav.isBound && fav.isComposable && fav.httpMethod == "GET")
        #expect(fav.bindingParameter?.type.name == "\(tripPinNS).Person")
        #expect(fav.entitySetPath == "person/Trips/PlanItems/\(tripPinNS).Flight/Airline")
        #expect(fav.returnType == TypeReference(name: "\(tripPinNS).Airline", nullable: false))
        let share = try #require(m.operations["\(tripPinNS).ShareTrip"]?.first)
        #expect(share.kind == .action && share.isBound && share.httpMethod == "POST" && share.returnType == nil)
        #expect(share.parameters.map(\.name) == ["person", "userName", "tripId"])
        let onPerson = m.boundOperations(for: "\(tripPinNS).Person", isCollection: false).map(\.qualifiedName)
        #expect(onPerson == ["\(tripPinNS).GetFavoriteAirline", "\(tripPinNS).GetFriendsTrips", "\(tripPinNS).ShareTrip"])
        #expect(m.boundOperations(named: "\(tripPinNS).GetInvolvedPeople", bindingType: "\(tripPinNS).Trip", isCollection: false).count == 1)
        #expect(m.boundOperations(named: "\(tripPinNS).GetInvolvedPeople", bindingType: "\(tripPinNS).Trip", isCollection: true).isEmpty)

        // Imports resolve to their (unbound) operation under the import's name.
        let nearest = try #require(m.operationImports["GetNearestAirport"])
        #expect(nearest.kind == .function && nearest.qualifiedName == "\(tripPinNS).GetNearestAirport")
        #expect(nearest.entitySet == "Airports" && nearest.httpMethod == "GET" && !nearest.isBound)
        #expect(nearest.parameters.map(\.type.name) == ["Edm.Double", "Edm.Double"])
        let reset = try #require(m.operationImports["ResetDataSource"])
        #expect(reset.kind == .action && reset.httpMethod == "POST" && reset.parameters.isEmpty)
    }

    @Test(arguments: [MetadataFixture.northwindV4OASIS, .northwindV4Olingo])
    func northwind(_ fixture: MetadataFixture) throws {
        let m = try MetadataParser.parse(fixture.bytes())
        #expect(m.version == .v4 && m.declaredVersion == "4.0")
        // xml.etree: 26 EntityType, 26 EntitySet, 22 NavigationProperty, 22
        // NavigationPropertyBinding, 9 ReferentialConstraint, 2 Schema.
        #expect(m.entityTypeCount == 26 && m.entitySets.count == 26 && m.navigationPropertyCount == 22)
        #expect(m.bindingCount == 22 && m.namespaces.count == 2)
        #expect(m.warnings.isEmpty)
        let declared = m.types.values.flatMap(\.navigationProperties).filter { !$0.referentialConstraints.isEmpty }
        // 9 declared + 9 partners that receive them reversed.
        #expect(declared.count == 18)
        let category = try #require(m.nav("NorthwindModel.Product", "Category"))
        #expect(category.partner == "Products" && constraintStrings(category) == ["CategoryID->CategoryID"])
        let products = try #require(m.nav("NorthwindModel.Category", "Products"))
        #expect(products.isCollection && constraintStrings(products) == ["CategoryID->CategoryID"])
        #expect(constraintStrings(m.nav("NorthwindModel.Shipper", "Orders")) == ["ShipperID->ShipVia"])
        #expect(m.nav("NorthwindModel.Order_Detail", "Order")?.nullable == false)
        #expect(m.prop("NorthwindModel.Category", "Picture")?.type.maxLengthIsMax == true)
        #expect(m.prop("NorthwindModel.Order_Detail", "UnitPrice")?.type.precision == 19)
        #expect(m.prop("NorthwindModel.Order_Detail", "UnitPrice")?.type.scale == 4)
    }

    /// A V4.01 document written to exercise aliases and the less common constructs.
    static let aliasDocument = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.01" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">
            <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="Shop.Model" Alias="m" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <TypeDefinition Name="Money" UnderlyingType="Edm.Decimal" Precision="18" Scale="2"/>
              <EnumType Name="Flags" IsFlags="true" UnderlyingType="Edm.Byte">
                <Member Name="None" Value="0"/><Member Name="A" Value="1"/><Member Name="B" Value="2"/>
              </EnumType>
              <EnumType Name="Level"><Member Name="Low"/><Member Name="Mid" Value="5"/><Member Name="High"/></EnumType>
              <ComplexType Name="Address">
                <Property Name="Zip" Type="Edm.String" MaxLength="max"/>
                <Property Name="Tags" Type="Collection(m.Level)" Nullable="false"/>
              </ComplexType>
              <EntityType Name="Base" Abstract="true"><Property Name="Created" Type="Edm.DateTimeOffset" Precision="3"/></EntityType>
              <EntityType Name="Customer" BaseType="m.Base" OpenType="true">
                <Key><PropertyRef Name="Id"/><PropertyRef Name="Home/Zip" Alias="Zip"/></Key>
                <Property Name="Id" Type="Edm.Int64" Nullable="false"/>
                <Property Name="Home" Type="m.Address" Nullable="false"/>
                <Property Name="Credit" Type="m.Money"/>
                <Property Name="Ratio" Type="Edm.Decimal" Scale="variable"/>
                <Property Name="ETag" Type="Core.Tag"/>
                <NavigationProperty Name="Orders" Type="Collection(m.Order)" Partner="Customer" ContainsTarget="false"/>
              </EntityType>
              <EntityType Name="Order">
                <Key><PropertyRef Name="Id"/></Key>
                <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="CustomerId" Type="Edm.Int64"/>
                <NavigationProperty Name="Customer" Type="m.Customer" Nullable="false" Partner="Orders">
                  <ReferentialConstraint Property="CustomerId" ReferencedProperty="Id"/>
                  <OnDelete Action="Cascade"/>
                </NavigationProperty>
              </EntityType>
              <Function Name="Top"><Parameter Name="n" Type="Edm.Int32"/><ReturnType Type="Collection(m.Order)"/></Function>
              <Function Name="Top"><Parameter Name="n" Type="Edm.Int32"/><Parameter Name="since" Type="Edm.Date"/><ReturnType Type="Collection(m.Order)"/></Function>
              <Function Name="Top" IsBound="true"><Parameter Name="c" Type="Collection(m.Customer)"/><ReturnType Type="m.Customer"/></Function>
              <Action Name="Ship" IsBound="true"><Parameter Name="o" Type="m.Order"/><Parameter Name="when" Type="Edm.DateTimeOffset"/></Action>
              <Term Name="Ignored" Type="Edm.String"/>
              <Annotations Target="m.Customer"><Annotation Term="Core.Description" String="x"/></Annotations>
              <EntityContainer Name="Shop">
                <EntitySet Name="Customers" EntityType="m.Customer">
                  <NavigationPropertyBinding Path="Orders" Target="Shop/Orders"/>
                </EntitySet>
                <EntitySet Name="Orders" EntityType="m.Order">
                  <NavigationPropertyBinding Path="Customer" Target="Customers"/>
                </EntitySet>
                <FunctionImport Name="TopOrders" Function="m.Top" EntitySet="Orders"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func aliasesAndLessCommonConstructs() throws {
        let m = try MetadataParser.parse(Self.aliasDocument)
        #expect(m.version == .v4 && m.declaredVersion == "4.01")
        #expect(m.aliases == ["m": "Shop.Model", "Core": "Org.OData.Core.V1"])
        #expect(m.referencedNamespaces == ["Org.OData.Core.V1"])
        #expect(m.warnings.isEmpty, "\(m.warnings)")

        let customer = try #require(m.entityType(ofSet: "Customers"))
        #expect(customer.baseType == "Shop.Model.Base" && customer.isOpen)
        #expect(m.type("m.Base")?.isAbstract == true)  // alias lookups work on the model too
        #expect(customer.key == ["Id", "Zip"] && customer.keyAliases == ["Zip": "Home/Zip"])
        #expect(m.keyProperties(of: customer).map(\.name) == ["Id", "Zip"])
        #expect(m.keyProperties(of: customer).last?.property.type.maxLengthIsMax == true)
        #expect(m.allProperties(of: customer).first?.type.precision == 3)
        #expect(m.prop("Shop.Model.Address", "Tags")?.type == TypeReference(name: "Shop.Model.Level", isCollection: true, nullable: false))
        #expect(m.prop("Shop.Model.Customer", "Credit")?.type.name == "Shop.Model.Money")
        #expect(m.primitiveKind(of: "m.Money") == .decimal)
        #expect(m.typeDefinitions["Shop.Model.Money"] == "Edm.Decimal")
        #expect(m.prop("Shop.Model.Customer", "Ratio")?.type.scaleIsVariable == true)
        #expect(m.prop("Shop.Model.Customer", "ETag")?.type.name == "Org.OData.Core.V1.Tag")

        #expect(m.enumType("m.Level")?.members.map(\.value) == [0, 5, 6])
        let flags = try #require(m.enumType("Shop.Model.Flags"))
        #expect(flags.isFlags && flags.underlyingType == "Edm.Byte" && flags.members.map(\.value) == [0, 1, 2])

        // The partner's constraint is reversed onto Customer/Orders.
        #expect(constraintStrings(m.nav("m.Order", "Customer")) == ["CustomerId->Id"])
        #expect(constraintStrings(m.nav("m.Customer", "Orders")) == ["Id->CustomerId"])
        #expect(m.entitySets["Customers"]?.navigationBindings == ["Orders": "Orders"])

        // Overloads: two unbound, one bound on a collection.
        #expect(m.operations["Shop.Model.Top"]?.count == 3)
        #expect(m.unboundOverloads(of: "m.Top").count == 2)
        #expect(m.boundOperations(named: "m.Top", bindingType: "m.Customer", isCollection: true).count == 1)
        #expect(m.boundOperations(named: "m.Top", bindingType: "m.Customer", isCollection: false).isEmpty)
        let top = try #require(m.operationImports["TopOrders"])
        #expect(top.qualifiedName == "Shop.Model.Top" && top.entitySet == "Orders")
        #expect(top.parameters.map(\.name) == ["n"] && top.returnType?.csdlName == "Collection(Shop.Model.Order)")
        #expect(m.boundOperations(for: "Shop.Model.Order", isCollection: false).map(\.qualifiedName) == ["Shop.Model.Ship"])
    }
}
