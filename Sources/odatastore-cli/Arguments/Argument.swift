/// One argument a command accepts: an option with a value (`--store FILE`, `--store=FILE`), a
/// flag (`--quiet`), a counted flag (`-v`, `-vv`) or a positional value. Its long name is
/// also its value's name in help texts (`--store <store>`) and the key the command reads it by.
struct Argument: Sendable {
    enum Kind: Sendable, Equatable {
        case positional, option, flag, counter
    }

    /// What an option's value must be; checked while parsing (a usage error otherwise).
    enum Value: Sendable, Equatable {
        case string
        /// Swift's `Int(_:)` / `Int64(_:)` syntax.
        case integer
        /// One of these words; help lists them.
        case choice([String])
    }

    var kind: Kind
    var name: String
    var short: Character? = nil
    var help: String
    var value: Value = .string
    /// May be given several times; every value is kept in order.
    var isRepeating = false
    /// A positional, or an option that must be given.
    var isRequired = false
    /// Shown in help as "(default: ...)"; the command applies it itself.
    var defaultValue: String? = nil

    static func positional(_ name: String, help: String) -> Argument {
        Argument(kind: .positional, name: name, help: help, isRequired: true)
    }

    static func option(_ name: String, help: String, value: Value = .string, repeating: Bool = false,
                       required: Bool = false, default defaultValue: String? = nil) -> Argument {
        Argument(kind: .option, name: name, help: help, value: value, isRepeating: repeating, isRequired: required,
                 defaultValue: defaultValue)
    }

    static func flag(_ name: String, help: String) -> Argument {
        Argument(kind: .flag, name: name, help: help)
    }

    /// A flag counted each time it is given (`-vv` is 2).
    static func counter(_ name: String, short: Character, help: String) -> Argument {
        Argument(kind: .counter, name: name, short: short, help: help, isRepeating: true)
    }

    /// A choice among the raw values of a string enumeration.
    static func choice<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> Value where E.RawValue == String {
        .choice(type.allCases.map(\.rawValue))
    }
}

/// The values given for one command's arguments, read by the command by name.
/// Reading a name the command did not declare is a programming error (it traps).
struct ParsedArguments: Sendable {
    let arguments: [Argument]
    /// Parallel to `arguments`: every value given, in order (a flag's count as that many "").
    var values: [[String]]

    init(_ arguments: [Argument]) {
        self.arguments = arguments
        values = Array(repeating: [], count: arguments.count)
    }

    func index(_ name: String) -> Int {
        guard let i = arguments.firstIndex(where: { $0.name == name }) else { fatalError("no argument '\(name)'") }
        return i
    }

    /// The last value given, or nil.
    func string(_ name: String) -> String? { values[index(name)].last }

    /// A positional or required option (the parser made sure it is there).
    func required(_ name: String) -> String { values[index(name)].last ?? "" }

    /// Every value of a repeatable option, in order.
    func strings(_ name: String) -> [String] { values[index(name)] }

    func flag(_ name: String) -> Bool { !values[index(name)].isEmpty }

    func count(_ name: String) -> Int { values[index(name)].count }

    /// An `.integer` option's value (checked while parsing).
    func int(_ name: String) -> Int? { string(name).flatMap { Int($0) } }

    func int64(_ name: String) -> Int64? { string(name).flatMap { Int64($0) } }

    /// A `.choice` option's value as its enumeration, or `fallback` when it was not given.
    func choice<E: RawRepresentable>(_ name: String, default fallback: E) -> E where E.RawValue == String {
        string(name).flatMap { E(rawValue: $0) } ?? fallback
    }
}
