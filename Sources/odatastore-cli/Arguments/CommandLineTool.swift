#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the tool: parses the command line, then prints help, the version or a usage error, or
/// runs the command. Exit status 0 after a run that returns, 64 for a usage error (a parse
/// error or a `ValidationError` the command throws), an `ExitCode`'s own status, 1 for any
/// other error. Called once, from `main`.
enum CommandLineTool {
    static func main(_ root: Command, _ words: [String]) async -> Never {
        if words.count == 2, words[0] == "--generate-man-pages" {
            // Hidden: scripts/man.sh writes man/ with it.
            exit(ManPages.write(root, to: words[1]) ? 0 : 1)
        }
        switch CommandLineParser(root: root).parse(words) {
        case .help(let stack):
            print(HelpText.help(stack))
            exit(0)
        case .version(let text):
            print(text)
            exit(0)
        case .usageError(let e):
            usageError(e)
        case .run(let stack, let arguments):
            do {
                try await stack[stack.count - 1].run!(arguments)
            } catch let e as ValidationError {
                usageError(CommandLineParser.UsageError(stack: stack, message: e.message))
            } catch let e as ExitCode {
                exit(e.rawValue)
            } catch {
                writeError("Error: \(error)")
                exit(ExitCode.failure.rawValue)
            }
            exit(0)
        }
    }

    static func usageError(_ e: CommandLineParser.UsageError) -> Never {
        writeError(HelpText.error(e))
        exit(ExitCode.usage.rawValue)
    }
}
