/// The values bound to one statement. Placeholders are numbered (`?1`, `?2`, ...), so the
/// pieces of a statement may be built in any order: a literal is never pasted into SQL.
struct SQLParameters {
    private(set) var values: [SQLValue] = []

    init() {}

    /// Adds `value` and returns its placeholder.
    mutating func bind(_ value: SQLValue) -> String {
        values.append(value)
        return "?\(values.count)"
    }
}
