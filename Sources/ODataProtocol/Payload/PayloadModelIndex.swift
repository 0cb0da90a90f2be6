import Synchronization

/// What a decoder needs to know about one member of a structured type.
struct PayloadMember: Sendable {
    enum Kind: Sendable {
        case primitive(EdmPrimitiveKind)
        /// An entity or complex type, by qualified name.
        case structured(String)
        case enumeration
        case navigation(target: String)
        case unknown
    }
    var kind: Kind
    var isCollection: Bool
    var isKey: Bool

    var isNavigation: Bool { if case .navigation = kind { return true } else { return false } }
}

/// What the JSON transcoder's per-member fast path needs to know about a member, with no
/// reference-counted payload (copying a `PayloadMember` retains its kind's strings).
struct PayloadMemberSlot: Sendable {
    /// The member's UTF-8 name in `PayloadTypeInfo.namePool`.
    var nameStart: Int
    var nameLength: Int
    /// The kind when the member is a single primitive value, else nil.
    var primitive: EdmPrimitiveKind?
    var isKey: Bool
    var isNavigation: Bool
    /// A name no JSON control-information rule applies to: no `@`, not starting with `#` or
    /// `odata.`, not `__metadata`. A key spelled like it is only ever this member.
    var isPlain: Bool
    /// The name is non-empty and written in JSON as it is (no quote, backslash or control
    /// character): a key with exactly these bytes between quotes is this name, unescaped
    /// (`JSONTranscoder.predictedKey`).
    var isVerbatimKey: Bool
}

/// A structured type flattened for fast lookups while decoding (inherited members included).
final class PayloadTypeInfo: Sendable {
    let qualifiedName: String
    let isEntity: Bool
    let keyNames: [String]
    let members: [String: PayloadMember]
    /// `members` keyed by UTF-8 bytes, for lookups straight from the input.
    let memberTable: ByteKeyedTable<PayloadMember>
    /// The members numbered in a fixed order (by name): the number is a member's bit in the
    /// JSON transcoder's duplicate check and its entry in the member-order memo.
    let memberList: [PayloadMember]
    let memberSlots: [PayloadMemberSlot]
    /// The members' names, UTF-8, one after the other (see `PayloadMemberSlot.nameStart`).
    let namePool: [UInt8]
    /// Name (UTF-8 bytes) -> member number.
    let memberNumbers: ByteKeyedTable<Int>
    /// Whether a member name starts with `@` (never in a valid model: then a key like
    /// `@odata.etag` needs no lookup).
    let hasNameStartingWithAt: Bool
    /// `memberSlots` and `namePool` in memory owned by this object (freed by `deinit`, never
    /// written after `init`), for the transcoder's per-key checks: reading them costs no
    /// reference counting, which reading the arrays through the class did once per key.
    nonisolated(unsafe) let slotPointer: UnsafeMutablePointer<PayloadMemberSlot>
    nonisolated(unsafe) let namePointer: UnsafeMutablePointer<UInt8>

    init(qualifiedName: String, isEntity: Bool, keyNames: [String], members: [String: PayloadMember]) {
        self.qualifiedName = qualifiedName
        self.isEntity = isEntity
        self.keyNames = keyNames
        self.members = members
        var t = ByteKeyedTable<PayloadMember>(capacity: members.count)
        for (k, v) in members { t.insert(Array(k.utf8), v) }
        memberTable = t
        var list: [PayloadMember] = []
        var slots: [PayloadMemberSlot] = []
        var pool: [UInt8] = []
        var numbers = ByteKeyedTable<Int>(capacity: members.count)
        for name in members.keys.sorted() {
            let m = members[name]!
            let bytes = Array(name.utf8)
            var primitive: EdmPrimitiveKind? = nil
            if !m.isCollection, case .primitive(let p) = m.kind { primitive = p }
            let plain = !bytes.contains(UInt8(ascii: "@")) && bytes.first != UInt8(ascii: "#")
                && !bytes.starts(with: "odata.".utf8) && name != "__metadata"
            numbers.insert(bytes, list.count)
            let verbatim = !bytes.isEmpty && !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            slots.append(PayloadMemberSlot(nameStart: pool.count, nameLength: bytes.count, primitive: primitive,
                                           isKey: m.isKey, isNavigation: m.isNavigation, isPlain: plain, isVerbatimKey: verbatim))
            list.append(m)
            pool.append(contentsOf: bytes)
        }
        memberList = list
        memberSlots = slots
        namePool = pool
        memberNumbers = numbers
        hasNameStartingWithAt = members.keys.contains { $0.utf8.first == UInt8(ascii: "@") }
        slotPointer = .allocate(capacity: max(slots.count, 1))
        slotPointer.initialize(from: slots, count: slots.count)
        namePointer = .allocate(capacity: max(pool.count, 1))
        namePointer.initialize(from: pool, count: pool.count)
    }

    deinit {
        slotPointer.deinitialize(count: memberSlots.count)
        slotPointer.deallocate()
        namePointer.deallocate()
    }
}

/// The flattened types of one `ServiceModel`, shared by every decode and encode made with
/// that model (a store keeps one for the life of its loaded `$metadata`): a type is flattened
/// once, not once per response. Thread-safe; entries are immutable once built.
public final class PayloadSchema: Sendable {
    public let model: ServiceModel
    private let types = Mutex<[String: PayloadTypeInfo]>([:])

    public init(_ model: ServiceModel) { self.model = model }

    func cached(_ name: String) -> PayloadTypeInfo? { types.withLock { $0[name] } }

    func store(_ info: PayloadTypeInfo, as names: [String]) {
        types.withLock { t in for n in names { t[n] = info } }
    }
}

/// Lookup caches over a `ServiceModel` for one decode or encode call, backed by a shared
/// `PayloadSchema` when the caller has one (the per-call cache itself is not shared between
/// threads, so the model stays immutable and `Sendable`).
final class PayloadModelIndex {
    let model: ServiceModel
    private let shared: PayloadSchema?
    /// Types this call looked up, by the name used. A short list searched in order: a
    /// response names one or two types, and a dictionary cost a hash and an allocation per call.
    /// Confined to the decode or encode call that owns the index: no dynamic exclusivity checks.
    @exclusivity(unchecked) private var types: [(name: String, info: PayloadTypeInfo)] = []

    init(_ model: ServiceModel) { self.model = model; shared = nil }

    init(_ schema: PayloadSchema) { self.model = schema.model; shared = schema }

    /// The flattened type for a qualified (or alias-qualified) name, `#` prefix allowed.
    func type(_ rawName: String) -> PayloadTypeInfo? {
        let name = rawName.utf8.first == UInt8(ascii: "#") ? String(rawName.dropFirst()) : rawName
        if let t = local(name) { return t }
        if let t = shared?.cached(name) { remember(name, t); return t }
        guard let st = model.structuredType(name) else { return nil }
        if let t = local(st.qualifiedName) { remember(name, t); return t }
        let keys = st.kind == .entity ? model.key(of: st) : []
        let keySet = Set(keys)
        var members: [String: PayloadMember] = [:]
        for p in model.allProperties(of: st) {
            members[p.name] = PayloadMember(kind: memberKind(p.type.name), isCollection: p.type.isCollection,
                                            isKey: keySet.contains(p.name))
        }
        for n in model.allNavigationProperties(of: st) {
            members[n.name] = PayloadMember(kind: .navigation(target: model.resolve(n.targetType)),
                                            isCollection: n.isCollection, isKey: false)
        }
        let info = PayloadTypeInfo(qualifiedName: st.qualifiedName, isEntity: st.kind == .entity, keyNames: keys,
                                   members: members)
        remember(st.qualifiedName, info)
        if name != st.qualifiedName { remember(name, info) }
        shared?.store(info, as: [st.qualifiedName, name])
        return info
    }

    private func remember(_ name: String, _ info: PayloadTypeInfo) {
        if types.isEmpty { types.reserveCapacity(4) }
        // Bounded when a shared cache (a dictionary) can answer instead, so a payload naming
        // many types does not make every lookup linear in their number.
        if types.count < 32 || shared == nil { types.append((name, info)) }
    }

    private func local(_ name: String) -> PayloadTypeInfo? {
        for entry in types where entry.name == name { return entry.info }
        return nil
    }

    /// The entity type of an entity set or singleton.
    func typeOfSet(_ set: String) -> PayloadTypeInfo? {
        guard let s = model.entitySets[set] else { return nil }
        return type(s.entityType)
    }

    func memberKind(_ typeName: String) -> PayloadMember.Kind {
        if let k = model.primitiveKind(of: typeName) { return .primitive(k) }
        let resolved = model.resolve(typeName)
        if model.enumTypes[resolved] != nil { return .enumeration }
        if model.types[resolved] != nil { return .structured(resolved) }
        return .unknown
    }

    /// The member kind for a `@odata.type` value such as `#Int64`, `#Edm.Decimal`,
    /// `#Collection(Edm.String)` or `#NS.Address` (short primitive names are V4's).
    func annotatedKind(_ raw: String) -> (PayloadMember.Kind, Bool) {
        PayloadModelIndex.annotatedKind(raw, index: self)
    }

    static func annotatedKind(_ raw: String, index: PayloadModelIndex?) -> (PayloadMember.Kind, Bool) {
        var name = raw.hasPrefix("#") ? String(raw.dropFirst()) : raw
        var collection = false
        if name.hasPrefix("Collection("), name.hasSuffix(")") {
            name = String(name.dropFirst(11).dropLast())
            collection = true
        }
        if !name.contains(".") { name = "Edm." + name }
        if let k = EdmPrimitiveKind(qualifiedName: name) { return (.primitive(k), collection) }
        if let index { return (index.memberKind(name), collection) }
        return (.unknown, collection)
    }
}
