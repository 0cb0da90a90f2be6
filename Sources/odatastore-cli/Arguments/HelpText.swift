#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The texts the parser shows: `--help`, the usage line, usage errors. Same layout as
/// swift-argument-parser's (which the command used before; Tests/cli/check_man.py reads the
/// OVERVIEW and SUBCOMMANDS sections): wrapped to $COLUMNS, else the terminal's width, else 80.
enum HelpText {
    static let indent = 2
    static let labelColumn = 26

    /// The arguments help lists for the last command of `stack`: its own, then --version and --help.
    static func listed(_ stack: [Command]) -> [Argument] {
        let command = stack[stack.count - 1]
        var arguments = command.arguments
        if !stack[0].version.isEmpty { arguments.append(.flag("version", help: "Show the version.")) }
        if !command.isHelp { arguments.append(Argument(kind: .flag, name: "help", short: "h", help: "Show help information.")) }
        return arguments
    }

    /// `--store <store>`, `-v, --verbose`, `<path>`.
    static func label(_ argument: Argument) -> String {
        switch argument.kind {
        case .positional: return "<\(argument.name)>"
        case .option: return "--\(argument.name) <\(argument.name)>"
        case .flag, .counter: return (argument.short.map { "-\($0), " } ?? "") + "--\(argument.name)"
        }
    }

    /// The usage line: `odatastore get <path> [--service <service>] ...`; past 12 arguments
    /// only the positional and required ones, after `[<options>]`.
    static func usage(_ stack: [Command]) -> String {
        let command = stack[stack.count - 1]
        let tool = stack.map(\.name).joined(separator: " ")
        func synopsis(_ a: Argument) -> String {
            var s: String
            switch a.kind {
            case .positional: s = "<\(a.name)>"
            case .option: s = "--\(a.name) <\(a.name)>"
            case .flag, .counter: s = "--\(a.name)"
            }
            if a.isRepeating { s += " ..." }
            return a.isRequired ? s : "[\(s)]"
        }
        var usage: String
        if command.arguments.isEmpty {
            usage = tool
        } else if command.arguments.count > 12 {
            let kept = command.arguments.filter(\.isRequired)
            usage = kept.isEmpty ? "\(tool) <options>" : "\(tool) [<options>] " + kept.map(synopsis).joined(separator: " ")
        } else {
            usage = tool + " " + command.arguments.map(synopsis).joined(separator: " ")
        }
        if !command.subcommands.isEmpty { usage += " <subcommand>" }
        return usage
    }

    /// The whole `--help` text (without the final newline).
    static func help(_ stack: [Command], width: Int = screenWidth()) -> String {
        let command = stack[stack.count - 1]
        var overview = command.abstract
        if !command.discussion.isEmpty {
            if !overview.isEmpty { overview += "\n" }
            overview += "\n" + command.discussion
        }
        var out = overview.isEmpty ? "" : wrap("OVERVIEW: " + overview, width) + "\n\n"
        out += "USAGE: \(usage(stack))\n\n"
        var sections: [String] = []
        let arguments = listed(stack)
        let positionals = arguments.filter { $0.kind == .positional }.map { element("<\($0.name)>", $0.help, width) }
        if !positionals.isEmpty { sections.append("ARGUMENTS:\n" + positionals.joined()) }
        let options = arguments.filter { $0.kind != .positional }.map { a in
            var description = a.help
            var notes: [String] = []
            if case .choice(let words) = a.value { notes.append("values: " + words.joined(separator: ", ")) }
            if let d = a.defaultValue { notes.append("default: " + d) }
            if !notes.isEmpty { description += (description.isEmpty ? "" : " ") + "(" + notes.joined(separator: "; ") + ")" }
            return element(label(a), description, width)
        }
        if !options.isEmpty { sections.append("OPTIONS:\n" + options.joined()) }
        let subcommands = command.subcommands.filter { !$0.isHelp }.map { element($0.name, $0.abstract, width) }
        if !subcommands.isEmpty { sections.append("SUBCOMMANDS:\n" + subcommands.joined()) }
        out += sections.joined(separator: "\n")
        if !subcommands.isEmpty {
            var names = stack.map(\.name)
            names.insert("help", at: 1)
            out += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
        }
        return out
    }

    /// A usage error as printed on stderr (without the final newline).
    static func error(_ e: CommandLineParser.UsageError) -> String {
        var out = "Error: \(e.message)\n"
        if let a = e.argument { out += "Help:  \(label(a))  \(a.help)\n" }
        out += "Usage: \(usage(e.stack))"
        if !e.stack[e.stack.count - 1].isHelp {
            out += "\n  See '\(e.stack.map(\.name).joined(separator: " ")) --help' for more information."
        }
        return out
    }

    /// One line of a section: the label, then the description from column 26 (on the next
    /// line when the label is wider).
    static func element(_ label: String, _ description: String, _ width: Int) -> String {
        let padded = String(repeating: " ", count: indent) + label
        guard !description.isEmpty else { return padded + "\n" }
        let wrapped = wrap(description, width, indent: labelColumn)
        if padded.count < labelColumn { return padded + wrapped.dropFirst(padded.count) + "\n" }
        return padded + "\n" + wrapped + "\n"
    }

    /// Wraps at spaces to `width` columns, continuation lines (and all lines) indented by `indent`;
    /// the text's own line breaks are kept. A word longer than the line stands alone.
    static func wrap(_ text: String, _ width: Int, indent: Int = 0) -> String {
        let columns = width - indent
        guard columns > 0 else { return "" }
        var lines: [Substring] = []
        var current = text.startIndex
        while true {
            let chunk = text[current...].prefix(columns)
            if let lastBreak = chunk.lastIndex(of: "\n") {
                lines += text[current..<lastBreak].split(separator: "\n", omittingEmptySubsequences: false)
                current = text.index(after: lastBreak)
            } else if chunk.endIndex == text.endIndex {
                lines.append(text[current...])
                break
            } else if let lastSpace = chunk.lastIndex(of: " ") {
                lines.append(text[current..<lastSpace])
                current = text.index(after: lastSpace)
            } else if let nextSpace = text[current...].firstIndex(of: " ") {
                lines.append(text[current..<nextSpace])
                current = text.index(after: nextSpace)
            } else {
                lines.append(text[current...])
                break
            }
        }
        let pad = String(repeating: " ", count: indent)
        return lines.map { $0.isEmpty ? "" : pad + $0 }.joined(separator: "\n")
    }

    /// $COLUMNS, else the width of the terminal on stdout, else 80.
    static func screenWidth() -> Int {
        if let v = getenv("COLUMNS"), let n = Int(String(cString: v)) { return n }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
