/// Parses the command line against the declared commands (Command.swift): finds the command
/// the words name, then its arguments. Pure: no I/O (CommandLineTool.swift prints and exits).
///
/// The rules (those of swift-argument-parser, which the command used before):
/// - `--name value` and `--name=value`; a value given as the next word must not start with
///   `-` (except `-` itself): `--name=-5` passes one that does.
/// - `--` ends the options: every word after it is a positional value.
/// - `-h`/`--help` anywhere before `--` shows the help of the command named so far; `--version`
///   prints the version. `odatastore help WORDS...` shows the help of the command WORDS name.
/// - Short flags may be grouped (`-vv`). A repeatable option keeps every value in order; any
///   other option keeps the last one.
struct CommandLineParser {
    let root: Command

    enum Outcome {
        /// Run the last command of the stack with these arguments.
        case run([Command], ParsedArguments)
        case help([Command])
        case version(String)
        case usageError(UsageError)
    }

    /// A usage error: the message, the argument it is about (for a "Help:" line) and the
    /// commands whose usage goes with it.
    struct UsageError: Error {
        var stack: [Command]
        var message: String
        var argument: Argument? = nil
    }

    func parse(_ words: [String]) -> Outcome {
        // The command the leading words name.
        var stack = [root]
        var rest = words[...]
        var descentError: UsageError? = nil
        descent: while !stack[stack.count - 1].subcommands.isEmpty, let word = rest.first {
            let node = stack[stack.count - 1]
            if word == "--help" || word == "-h" || word == "--version" {
                rest = rest.dropFirst()
                continue
            }
            if word == "--" {
                // Only values follow, and a group takes none: its help, or the values are unexpected.
                let extra = Array(rest.dropFirst())
                if !extra.isEmpty { descentError = UsageError(stack: stack, message: unexpected(extra)) }
                rest = []
                break descent
            }
            if word != "-" && word.hasPrefix("-") {
                let name = word.firstIndex(of: "=").map { String(word[..<$0]) } ?? word
                descentError = UsageError(stack: stack, message: unknownOption(name, in: node))
                break descent
            }
            if stack.count == 1 && word == "help" {
                return .help(helpTarget(Array(rest.dropFirst())))
            }
            if let sub = node.subcommand(named: word) {
                stack.append(sub)
                rest = rest.dropFirst()
                continue
            }
            let extra = rest.filter { $0 != "--" && ($0 == "-" || !$0.hasPrefix("-")) }
            descentError = UsageError(stack: stack, message: unexpected(extra))
            break descent
        }
        let command = stack[stack.count - 1]
        let options = words[..<(words.firstIndex(of: "--") ?? words.endIndex)]
        let wantsHelp = options.contains { $0 == "--help" || $0.contains("h") && isShortGroup($0, of: command) }
        if wantsHelp { return .help(stack) }
        if options.contains("--version") { return .version(root.version) }
        if let descentError { return .usageError(descentError) }
        if command.run == nil { return .help(stack) }
        do {
            return .run(stack, try parseArguments(of: command, Array(rest), stack: stack))
        } catch {
            return .usageError(error)
        }
    }

    /// `help WORDS`: the deepest command the words name.
    func helpTarget(_ words: [String]) -> [Command] {
        var stack = [root]
        for word in words {
            guard let sub = stack[stack.count - 1].subcommand(named: word) else { break }
            stack.append(sub)
        }
        return stack
    }

    func parseArguments(of command: Command, _ words: [String], stack: [Command]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments(command.arguments)
        let positionals = command.arguments.indices.filter { command.arguments[$0].kind == .positional }
        var nextPositional = 0
        var extra: [String] = []
        func positional(_ word: String) {
            if nextPositional < positionals.count {
                parsed.values[positionals[nextPositional]].append(word)
                if !command.arguments[positionals[nextPositional]].isRepeating { nextPositional += 1 }
            } else {
                extra.append(word)
            }
        }
        func fail(_ message: String, _ argument: Argument? = nil) -> UsageError {
            UsageError(stack: stack, message: message, argument: argument)
        }

        var i = 0
        while i < words.count {
            let word = words[i]
            i += 1
            if word == "--" {
                for w in words[i...] { positional(w) }
                break
            }
            if word == "-" || !word.hasPrefix("-") {
                positional(word)
                continue
            }
            if word == "--help" || word == "--version" { continue }
            if word.hasPrefix("---") { throw fail("Invalid option: \(word)") }
            if !word.hasPrefix("--"), !word.contains("="), let first = word.dropFirst().first,
               first == "h" || command.arguments.contains(where: { $0.short == first }) {
                // -vv: every letter a short flag (-h was seen before parsing).
                for letter in word.dropFirst() where letter != "h" {
                    guard let k = command.arguments.firstIndex(where: { $0.short == letter }) else {
                        throw fail(unknownOption("-\(letter)", in: command))
                    }
                    parsed.values[k].append("")
                }
                continue
            }
            let body = word.hasPrefix("--") ? word.dropFirst(2) : word.dropFirst()
            let equals = body.firstIndex(of: "=")
            let name = equals.map { body[..<$0] } ?? body
            let inline = equals.map { String(body[body.index(after: $0)...]) }
            guard word.hasPrefix("--"),
                  let k = command.arguments.firstIndex(where: { $0.kind != .positional && $0.name == name })
            else {
                throw fail(unknownOption(equals.map { String(word[..<$0]) } ?? word, in: command))
            }
            let argument = command.arguments[k]
            if argument.kind != .option {
                if let inline { throw fail("The option '--\(name)' does not take any value, but '\(inline)' was specified.") }
                parsed.values[k].append("")
                continue
            }
            var value = inline
            // A negative number after an integer option is its value (refused below with
            // what is wrong with it), not an option.
            if value == nil, i < words.count,
               words[i] == "-" || !words[i].hasPrefix("-") || (argument.value == .integer && Int(words[i]) != nil) {
                value = words[i]
                i += 1
            }
            guard let value, !value.isEmpty || inline == nil else {
                throw fail("Missing value for '\(label(argument))'", argument)
            }
            switch argument.value {
            case .string: break
            case .integer:
                guard let n = Int(value) else { throw fail("The value '\(value)' is invalid for '\(label(argument))'", argument) }
                // Every integer option is a count, a number of seconds or an ID.
                if n < 0 { throw fail("The value '\(value)' is invalid for '\(label(argument))': it must not be negative", argument) }
            case .choice(let words):
                if !words.contains(value) {
                    throw fail("The value '\(value)' is invalid for '\(label(argument))'. Please provide one of \(oneOf(words)).", argument)
                }
            }
            if argument.isRepeating { parsed.values[k].append(value) } else { parsed.values[k] = [value] }
        }
        if !extra.isEmpty { throw fail(unexpected(extra)) }
        for (k, argument) in command.arguments.enumerated() where argument.isRequired && parsed.values[k].isEmpty {
            throw fail("Missing expected argument '\(label(argument))'", argument)
        }
        return parsed
    }

    /// `-v`, `-vh`: a single dash then letters, each the short name of one of `command`'s
    /// flags or `h` (help).
    func isShortGroup(_ word: String, of command: Command) -> Bool {
        word.count >= 2 && word.hasPrefix("-") && !word.hasPrefix("--")
            && word.dropFirst().allSatisfy { letter in letter == "h" || command.arguments.contains { $0.short == letter } }
    }

    /// `--store <store>`, `-v, --verbose`, `<path>`: an argument as help and errors name it.
    func label(_ argument: Argument) -> String {
        HelpText.label(argument)
    }

    func unknownOption(_ word: String, in command: Command) -> String {
        var message = "Unknown option '\(word)'"
        if word.count > 2 || !word.hasPrefix("-") || word.hasPrefix("--") {
            // The closest long name, when it is close (fewer than 4 edits).
            var best: (name: String, distance: Int)? = nil
            for argument in command.arguments where argument.kind != .positional {
                let candidate = "--" + argument.name
                let d = editDistance(candidate, word)
                if d < 4, best == nil || d < best!.distance { best = (candidate, d) }
            }
            if let best { message += ". Did you mean '\(best.name)'?" }
        }
        return message
    }

    func unexpected(_ words: [String]) -> String {
        words.count == 1 ? "Unexpected argument '\(words[0])'"
            : "\(words.count) unexpected arguments: '\(words.joined(separator: "', '"))'"
    }

    /// 'a', 'b' or 'c'; 'a' and 'b' (swift-argument-parser's words).
    func oneOf(_ words: [String]) -> String {
        let quoted = words.map { "'\($0)'" }
        guard quoted.count > 2 else { return quoted.joined(separator: " and ") }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
    }

    /// Levenshtein distance over characters.
    func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
