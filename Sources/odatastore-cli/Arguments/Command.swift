/// One command of the `odatastore` tool, declared as data: its texts, its arguments, and
/// either subcommands or the code that runs it. The parser (CommandLineParser.swift), the help
/// (HelpText.swift) and the man pages (ManPages.swift) all read these declarations; nothing is
/// discovered by reflection. Immutable values, built once (static lets), shared by all threads.
struct Command: Sendable {
    var name: String
    /// One line: the OVERVIEW of --help, the list of the parent's SUBCOMMANDS, the man page's summary.
    var abstract: String
    /// Paragraphs after the abstract (kept as written: examples keep their indentation).
    var discussion: String = ""
    var arguments: [Argument] = []
    var subcommands: [Command] = []
    /// The root's version text (`--version`), shown by every command's help.
    var version: String = ""
    /// Runs the command with its parsed arguments; nil for a command that only groups others
    /// (it prints its help when called alone).
    var run: (@Sendable (ParsedArguments) async throws -> Void)? = nil
    /// The built-in `help` command: no --help of its own.
    var isHelp = false

    init(name: String, abstract: String, discussion: String = "", arguments: [Argument] = [],
         subcommands: [Command] = [], version: String = "") {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.subcommands = subcommands
        self.version = version
    }

    /// A command run by `C`: its arguments are read by `C.init`, checked by `validate()`, then `run()`.
    init<C: RunnableCommand>(_ type: C.Type, name: String, abstract: String, discussion: String = "",
                             arguments: [Argument]) {
        self.init(name: name, abstract: abstract, discussion: discussion, arguments: arguments)
        run = { arguments in
            let command = try C(arguments)
            try command.validate()
            try await command.run()
        }
    }

    func subcommand(named name: String) -> Command? { subcommands.first { $0.name == name } }

    /// The root's `help [<subcommands> ...]`: the parser answers it itself; declared so that
    /// `help help` and its man page describe it. Not listed among the SUBCOMMANDS of --help.
    static let help: Command = {
        var c = Command(name: "help", abstract: "Show subcommand help information.",
                        arguments: [Argument(kind: .positional, name: "subcommands", help: "", isRepeating: true)])
        c.isHelp = true
        return c
    }()
}

/// A command's code: built from its parsed arguments, checked, run. A `ValidationError` thrown
/// by any of the three is a usage error (exit status 64); an `ExitCode` ends the process with it.
protocol RunnableCommand: SendableMetatype {
    init(_ arguments: ParsedArguments) throws
    func validate() throws
    func run() async throws
}

extension RunnableCommand {
    func validate() throws {}
}

/// A usage error found by a command itself: printed with the command's usage, exit status 64.
struct ValidationError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Ends the process with this status (the command has printed what it had to say).
struct ExitCode: Error {
    var rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }

    static let success = ExitCode(0)
    static let failure = ExitCode(1)
    /// EX_USAGE (sysexits.h): the status of every usage error.
    static let usage = ExitCode(64)
}
