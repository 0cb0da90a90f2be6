/// Converts UTF-8 byte offsets (what the parsers track) into character offsets (what errors
/// and nodes report).
struct PositionTable: Sendable {
    let table: [Int]

    init(_ text: String) {
        var t: [Int] = []
        t.reserveCapacity(text.utf8.count + 1)
        var index = 0
        for ch in text {
            for _ in ch.utf8 { t.append(index) }
            index += 1
        }
        t.append(index)
        table = t
    }

    func character(atByte b: Int) -> Int {
        if b < 0 { return 0 }
        if b < table.count { return table[b] }
        return (table.last ?? 0) + (b - table.count + 1)
    }
}
