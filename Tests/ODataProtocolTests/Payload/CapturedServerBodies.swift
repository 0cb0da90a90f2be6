/// Bodies captured from the project's real test services (Tests/servers: pyslet 0.7.20170805 for
/// V2, odatapy 5.3.0 for V4) on 127.0.0.1, kept verbatim so their quirks stay under test.
enum CapturedServerBodies {
    static let v2Metadata = ####"""
<?xml version="1.0" encoding="UTF-8"?>
<edmx:Edmx xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" Version="1.0">
	<edmx:DataServices m:DataServiceVersion="2.0">
		<Schema xmlns="http://schemas.microsoft.com/ado/2006/04/edm" Namespace="ODataStoreTestV2">
			<EntityType Abstract="false" Name="Category">
				<Key><PropertyRef Name="ID"/></Key>
				<Property Name="ID" Nullable="false" Type="Edm.Int32"/>
				<Property MaxLength="50" Name="Name" Nullable="false" Type="Edm.String"/>
				<NavigationProperty FromRole="Category" Name="Products" Relationship="ODataStoreTestV2.Category_Products" ToRole="Products"/>
			</EntityType>
			<EntityType Abstract="false" Name="Product">
				<Key><PropertyRef Name="ID"/></Key>
				<Property Name="ID" Nullable="false" Type="Edm.Int32"/>
				<Property MaxLength="100" Name="Name" Nullable="false" Type="Edm.String"/>
				<Property Name="Description" Nullable="true" Type="Edm.String"/>
				<Property Name="Price" Nullable="false" Precision="12" Scale="2" Type="Edm.Decimal"/>
				<Property Name="Stock" Nullable="false" Type="Edm.Int64"/>
				<Property Name="Discontinued" Nullable="false" Type="Edm.Boolean"/>
				<Property Name="Rating" Nullable="true" Type="Edm.Int32"/>
				<Property Name="ReleaseDate" Nullable="true" Type="Edm.DateTime"/>
				<Property Name="UUID" Nullable="true" Type="Edm.Guid"/>
				<Property ConcurrencyMode="Fixed" Name="Version" Nullable="false" Type="Edm.Int32"/>
				<NavigationProperty FromRole="Products" Name="Category" Relationship="ODataStoreTestV2.Category_Products" ToRole="Category"/>
			</EntityType>
			<EntityType Abstract="false" Name="OrderLine">
				<Key><PropertyRef Name="OrderID"/><PropertyRef Name="LineNo"/></Key>
				<Property Name="OrderID" Nullable="false" Type="Edm.Int32"/>
				<Property Name="LineNo" Nullable="false" Type="Edm.Int32"/>
				<Property Name="ProductID" Nullable="false" Type="Edm.Int32"/>
				<Property Name="Quantity" Nullable="false" Type="Edm.Int32"/>
				<Property Name="UnitPrice" Nullable="false" Precision="12" Scale="2" Type="Edm.Decimal"/>
				<Property Name="Note" Nullable="true" Type="Edm.String"/>
			</EntityType>
			<EntityType Abstract="false" Name="Customer">
				<Key><PropertyRef Name="CustomerID"/></Key>
				<Property MaxLength="20" Name="CustomerID" Nullable="false" Type="Edm.String"/>
				<Property Name="CompanyName" Nullable="false" Type="Edm.String"/>
				<Property Name="City" Nullable="true" Type="Edm.String"/>
			</EntityType>
			<Association Name="Category_Products"><End Multiplicity="0..1" Role="Category" Type="ODataStoreTestV2.Category"/><End Multiplicity="*" Role="Products" Type="ODataStoreTestV2.Product"/></Association>
			<EntityContainer m:IsDefaultEntityContainer="true" Name="TestService">
				<EntitySet EntityType="ODataStoreTestV2.Category" Name="Categories"/>
				<EntitySet EntityType="ODataStoreTestV2.Product" Name="Products"/>
				<EntitySet EntityType="ODataStoreTestV2.OrderLine" Name="OrderLines"/>
				<EntitySet EntityType="ODataStoreTestV2.Customer" Name="Customers"/>
				<AssociationSet Association="ODataStoreTestV2.Category_Products" Name="Category_Products">
					<End EntitySet="Categories" Role="Category"/>
					<End EntitySet="Products" Role="Products"/>
				</AssociationSet>
				<FunctionImport m:HttpMethod="GET" EntitySet="Products" Name="ProductsByRating" ReturnType="Collection(ODataStoreTestV2.Product)">
					<Parameter Mode="In" Name="rating" Type="Edm.Int32"/>
				</FunctionImport>
				<FunctionImport m:HttpMethod="GET" EntitySet="" Name="TotalStock" ReturnType="Edm.Int64"/>
			</EntityContainer>
		</Schema>
	</edmx:DataServices>
</edmx:Edmx>
"""####
    static let v2Products = ####"{"d":{"__count":300,"results":[{"__metadata":{"uri":"http://127.0.0.1:35489/v2/Products(1)","type":"ODataStoreTestV2.Product","etag":"W/\"1\""},"ID":1,"Name":"Product 001","Description":"Description of product 1","Price":"37.37","Stock":"1000","Discontinued":false,"Rating":2,"ReleaseDate":"\/Date(1577923200000)\/","UUID":"0cc4150d-ef37-5878-a93d-8c5321885e54","Version":1, "Category":{"__metadata":{"uri":"http://127.0.0.1:35489/v2/Categories(1)","type":"ODataStoreTestV2.Category"},"ID":1,"Name":"Beverages", "Products":{"__deferred":{"uri":"http://127.0.0.1:35489/v2/Categories(1)/Products"}}}},{"__metadata":{"uri":"http://127.0.0.1:35489/v2/Products(2)","type":"ODataStoreTestV2.Product","etag":"W/\"1\""},"ID":2,"Name":"Product 002","Description":"Description of product 2","Price":"74.74","Stock":"2000","Discontinued":false,"Rating":3,"ReleaseDate":"\/Date(1578009600000)\/","UUID":"8e8bae67-e9ce-5658-af2e-d36540c96be7","Version":1, "Category":{"__metadata":{"uri":"http://127.0.0.1:35489/v2/Categories(2)","type":"ODataStoreTestV2.Category"},"ID":2,"Name":"Condiments", "Products":{"__deferred":{"uri":"http://127.0.0.1:35489/v2/Categories(2)/Products"}}}}]}}"####
    static let v2ProductsAtom = ####"""
<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xml:base="http://127.0.0.1:35489/v2/">
	<id>http://127.0.0.1:35489/v2/Products</id>
	<title type="text">ODataStoreTestV2.TestService.Products</title>
	<updated>2026-11-22T01:16:49Z</updated>
	<link href="http://127.0.0.1:35489/v2/Products" rel="self"/>
	<m:count>300</m:count>
	<entry>
		<id>http://127.0.0.1:35489/v2/Products(1)</id>
		<title type="text"/>
		<updated>2026-11-22T01:16:49Z</updated>
		<link href="http://127.0.0.1:35489/v2/Products(1)" rel="edit"/>
		<link href="http://127.0.0.1:35489/v2/Products(1)/Category" rel="http://schemas.microsoft.com/ado/2007/08/dataservices/related/Category" title="Category" type="application/atom+xml;type=entry"/>
		<category scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme" term="ODataStoreTestV2.Product"/>
		<content type="application/xml"><m:properties><d:ID>1</d:ID><d:Name>Product 001</d:Name><d:Description>Description of product 1</d:Description><d:Price>37.37</d:Price><d:Stock>1000</d:Stock><d:Discontinued>false</d:Discontinued><d:Rating>2</d:Rating><d:ReleaseDate>2020-01-02T00:00:00</d:ReleaseDate><d:UUID>0cc4150d-ef37-5878-a93d-8c5321885e54</d:UUID><d:Version>1</d:Version></m:properties></content>
	</entry>
	<entry>
		<id>http://127.0.0.1:35489/v2/Products(2)</id>
		<title type="text"/>
		<updated>2026-11-22T01:16:49Z</updated>
		<link href="http://127.0.0.1:35489/v2/Products(2)" rel="edit"/>
		<link href="http://127.0.0.1:35489/v2/Products(2)/Category" rel="http://schemas.microsoft.com/ado/2007/08/dataservices/related/Category" title="Category" type="application/atom+xml;type=entry"/>
		<category scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme" term="ODataStoreTestV2.Product"/>
		<content type="application/xml"><m:properties><d:ID>2</d:ID><d:Name>Product 002</d:Name><d:Description>Description of product 2</d:Description><d:Price>74.74</d:Price><d:Stock>2000</d:Stock><d:Discontinued>false</d:Discontinued><d:Rating>3</d:Rating><d:ReleaseDate>2020-01-03T00:00:00</d:ReleaseDate><d:UUID>8e8bae67-e9ce-5658-af2e-d36540c96be7</d:UUID><d:Version>1</d:Version></m:properties></content>
	</entry>
</feed>
"""####
    static let v2Total = ####"{"d":{"results":{"TotalStock":"54043195572547008"}}}"####
    static let v2Price = ####"{"d":{"results":{"Price":"37.37"}}}"####
    static let v2Error = ####"{"error":{"code":"Resource not found","message":"Resource not found for segment Products(99999)"}}"####
    static let v4Metadata = ####"<?xml version="1.0" encoding="UTF-8"?><edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.01"><edmx:DataServices><Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="ODataStoreTest"><EntityType Name="Category"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="50"/><NavigationProperty Name="Products" Type="Collection(ODataStoreTest.Product)" Partner="Category"/></EntityType><EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="100"/><Property Name="Description" Type="Edm.String"/><Property Name="Price" Type="Edm.Decimal" Nullable="false" Precision="12" Scale="2"/><Property Name="Stock" Type="Edm.Int64" Nullable="false"/><Property Name="Discontinued" Type="Edm.Boolean" Nullable="false"/><Property Name="Rating" Type="Edm.Int32"/><Property Name="ReleaseDate" Type="Edm.Date"/><Property Name="LastModified" Type="Edm.DateTimeOffset" Precision="0"/><Property Name="UUID" Type="Edm.Guid"/><Property Name="CategoryID" Type="Edm.Int32"/><NavigationProperty Name="Category" Type="ODataStoreTest.Category" Partner="Products"><ReferentialConstraint Property="CategoryID" ReferencedProperty="ID"/></NavigationProperty></EntityType><EntityType Name="OrderLine"><Key><PropertyRef Name="OrderID"/><PropertyRef Name="LineNo"/></Key><Property Name="OrderID" Type="Edm.Int32" Nullable="false"/><Property Name="LineNo" Type="Edm.Int32" Nullable="false"/><Property Name="ProductID" Type="Edm.Int32" Nullable="false"/><Property Name="Quantity" Type="Edm.Int32" Nullable="false"/><Property Name="UnitPrice" Type="Edm.Decimal" Nullable="false" Precision="12" Scale="2"/><Property Name="Note" Type="Edm.String"/></EntityType><EntityType Name="Customer"><Key><PropertyRef Name="CustomerID"/></Key><Property Name="CustomerID" Type="Edm.String" Nullable="false" MaxLength="20"/><Property Name="CompanyName" Type="Edm.String" Nullable="false"/><Property Name="City" Type="Edm.String"/></EntityType><Action Name="Discount" IsBound="false"><Parameter Name="categoryID" Type="Edm.Int32" Nullable="false"/><Parameter Name="percent" Type="Edm.Int32" Nullable="false"/><ReturnType Type="Edm.Int32" Nullable="false"/></Action><Function Name="ProductsByRating" IsBound="false" IsComposable="false"><Parameter Name="rating" Type="Edm.Int32" Nullable="false"/><ReturnType Type="Collection(ODataStoreTest.Product)"/></Function><Function Name="MostExpensive" IsBound="false" IsComposable="false"><ReturnType Type="ODataStoreTest.Product"/></Function><Function Name="TotalStock" IsBound="false" IsComposable="false"><ReturnType Type="Edm.Int64" Nullable="false"/></Function><EntityContainer Name="Container"><EntitySet Name="Categories" EntityType="ODataStoreTest.Category"><NavigationPropertyBinding Path="Products" Target="Products"/></EntitySet><EntitySet Name="Products" EntityType="ODataStoreTest.Product"><NavigationPropertyBinding Path="Category" Target="Categories"/></EntitySet><EntitySet Name="OrderLines" EntityType="ODataStoreTest.OrderLine"/><EntitySet Name="Customers" EntityType="ODataStoreTest.Customer"/><ActionImport Name="Discount" Action="ODataStoreTest.Discount"/><FunctionImport Name="ProductsByRating" Function="ODataStoreTest.ProductsByRating" EntitySet="Products" IncludeInServiceDocument="true"/><FunctionImport Name="MostExpensive" Function="ODataStoreTest.MostExpensive" EntitySet="Products"/><FunctionImport Name="TotalStock" Function="ODataStoreTest.TotalStock"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>"####
    static let v4Products = ####"{"@odata.context":"http://127.0.0.1:35841/odata/$metadata#Products(Category)","@odata.count":300,"value":[{"@odata.etag":"W/\"1\"","ID":1,"Name":"Product 001","Description":"Description of product 1","Price":"37.37","Stock":"1000","Discontinued":false,"Rating":2,"ReleaseDate":"2020-01-02","LastModified":"2024-01-01T01:00:00Z","UUID":"0cc4150d-ef37-5878-a93d-8c5321885e54","CategoryID":1,"Category":{"@odata.etag":"W/\"1\"","ID":1,"Name":"Beverages"}},{"@odata.etag":"W/\"1\"","ID":2,"Name":"Product 002","Description":"Description of product 2","Price":"74.74","Stock":"2000","Discontinued":false,"Rating":3,"ReleaseDate":"2020-01-03","LastModified":"2024-01-01T02:00:00Z","UUID":"8e8bae67-e9ce-5658-af2e-d36540c96be7","CategoryID":2,"Category":{"@odata.etag":"W/\"1\"","ID":2,"Name":"Condiments"}}]}"####
    static let v4ProductsNoIEEE = ####"{"@odata.context":"http://127.0.0.1:35841/odata/$metadata#Products","value":[{"@odata.etag":"W/\"1\"","ID":1,"Name":"Product 001","Description":"Description of product 1","Price":37.37,"Stock":1000,"Discontinued":false,"Rating":2,"ReleaseDate":"2020-01-02","LastModified":"2024-01-01T01:00:00Z","UUID":"0cc4150d-ef37-5878-a93d-8c5321885e54","CategoryID":1},{"@odata.etag":"W/\"1\"","ID":2,"Name":"Product 002","Description":"Description of product 2","Price":74.74,"Stock":2000,"Discontinued":false,"Rating":3,"ReleaseDate":"2020-01-03","LastModified":"2024-01-01T02:00:00Z","UUID":"8e8bae67-e9ce-5658-af2e-d36540c96be7","CategoryID":2}]}"####
    static let v4Total = ####"{"@odata.context":"http://127.0.0.1:35841/odata/$metadata#Edm.Int64","value":54043195572547008}"####
    static let v4Price = ####"{"@odata.context":"http://127.0.0.1:35841/odata/$metadata#Products(1)/Price","value":37.37}"####
    static let v4Error = ####"{"error":{"code":"404","message":"Entity not found."}}"####
}
