/// Prints an expression tree as canonical `$filter`/`$orderby` text (not percent-encoded):
/// single spaces around operators, no spaces after commas, parentheses only where precedence
/// needs them. Parsing the output with the same version gives an equal tree.
public enum FilterPrinter {
    public static func print(_ e: FilterExpression, version: ODataVersion?) -> String {
        var out = ""
        write(e, version, into: &out)
        return out
    }

    /// Binds like a primary expression (needs no parentheses as an operand of anything).
    static func isPrimary(_ e: FilterExpression) -> Bool {
        switch e.kind {
        case .literal, .alias, .member, .call, .typeFunction, .array, .object: return true
        case .binary(let op, _, _): return op == .has
        case .inList: return true
        case .unary: return false
        }
    }

    static func precedence(_ e: FilterExpression) -> Int {
        switch e.kind {
        case .binary(let op, _, _): return op.precedence
        case .unary: return 7
        default: return 9
        }
    }

    static func startsNumeric(_ text: String) -> Bool {
        guard let f = text.utf8.first else { return false }
        return (f >= 0x30 && f <= 0x39) || f == UInt8(ascii: "-") || text.hasPrefix("INF") || text.hasPrefix("NaN")
    }

    static func write(_ e: FilterExpression, _ v: ODataVersion?, into out: inout String) {
        switch e.kind {
        case .literal(let l):
            out += LiteralPrinter.print(l, version: v)
        case .alias(let a):
            out += "@" + a
        case .member(let m):
            writeMember(m, v, into: &out)
        case .unary(let op, let operand):
            if op == .not {
                out += "not "
                writeOperand(operand, needsParens: !isPrimary(operand) && precedence(operand) < 7, v, into: &out)
            } else {
                var inner = ""
                write(operand, v, into: &inner)
                let wrap = (!isPrimary(operand) && precedence(operand) < 7) || startsNumeric(inner)
                    || { if case .literal = operand.kind { return true } else { return false } }()
                out += "-"
                out += wrap ? "(" + inner + ")" : inner
            }
        case .binary, .inList:
            writeChain(e, v, into: &out)
        case .call(let name, let args):
            out += name + "("
            for (i, a) in args.enumerated() {
                // case(cond:value,cond:value)
                if i > 0 { out += name == "case" && i % 2 == 1 ? ":" : "," }
                write(a, v, into: &out)
            }
            out += ")"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                writeJSONValue(item, v, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                out += jsonString(m.name) + ":"
                writeJSONValue(m.value, v, into: &out)
            }
            out += "}"
        case .typeFunction(let fn, let operand, let typeName):
            out += fn.rawValue + "("
            if let operand {
                write(operand, v, into: &out)
                out += ","
            }
            let quote = v == .v2 || (v == nil && !typeName.contains("."))
            out += quote ? LiteralPrinter.quoted(typeName) : typeName
            out += ")"
        }
    }

    /// Binary operators and `in`, bottom-up along the left spine: the leftmost operand first,
    /// then each operator with its right operand, wrapping what is written so far in
    /// parentheses where the operator binds tighter than the left operand.
    static func writeChain(_ e: FilterExpression, _ v: ODataVersion?, into out: inout String) {
        let spine = e.leftSpine
        guard let leaf = spine.last else { return }
        var text = ""
        write(leaf, v, into: &text)
        var left = leaf
        for node in spine.dropLast().reversed() {
            switch node.kind {
            case .binary(let op, _, let r):
                if op == .has {
                    if !isPrimary(left) { text = "(" + text + ")" }
                    text += " has "
                    let rightPrimary: Bool
                    switch r.kind {
                    case .literal, .alias, .member, .call, .typeFunction, .array, .object: rightPrimary = true
                    default: rightPrimary = false
                    }
                    writeOperand(r, needsParens: !rightPrimary, v, into: &text)
                } else {
                    if precedence(left) < op.precedence { text = "(" + text + ")" }
                    text += " " + op.rawValue + " "
                    writeOperand(r, needsParens: precedence(r) <= op.precedence, v, into: &text)
                }
            case .inList(_, let items):
                if !isPrimary(left) { text = "(" + text + ")" }
                text += " in "
                writeInOperand(items, v, into: &text)
            default:
                break
            }
            left = node
        }
        out += text
    }

    /// The right side of `in`: `(literal,…)` for primitive literals, the operand itself for a
    /// single collection-valued expression (`in Tags`), else a JSON array (`in [1,2 add 3]`).
    static func writeInOperand(_ items: [FilterExpression], _ v: ODataVersion?, into out: inout String) {
        if items.count == 1, !ExpressionParser.isListLiteral(items[0]) {
            let wrap: Bool
            switch items[0].kind {
            case .binary, .inList, .unary, .array: wrap = true
            default: wrap = false
            }
            writeOperand(items[0], needsParens: wrap, v, into: &out)
            return
        }
        if items.allSatisfy(ExpressionParser.isListLiteral) {
            out += "("
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, v, into: &out)
            }
            out += ")"
            return
        }
        write(FilterExpression(.array(items)), v, into: &out)
    }

    /// Inside a JSON array or object: strings as JSON strings, anything else as an expression.
    static func writeJSONValue(_ e: FilterExpression, _ v: ODataVersion?, into out: inout String) {
        if case .literal(.string(let s)) = e.kind {
            out += jsonString(s)
        } else {
            write(e, v, into: &out)
        }
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as `\uXXXX`.
    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    static func writeOperand(_ e: FilterExpression, needsParens: Bool, _ v: ODataVersion?, into out: inout String) {
        if needsParens { out += "(" }
        write(e, v, into: &out)
        if needsParens { out += ")" }
    }

    static func writeMember(_ m: MemberPath, _ v: ODataVersion?, into out: inout String) {
        var parts: [String] = []
        switch m.root {
        case .implicit: break
        case .it: parts.append("$it")
        case .root: parts.append("$root")
        case .this: parts.append("$this")
        case .rangeVariable(let name): parts.append(name)
        case .alias(let name): parts.append("@" + name)
        }
        for s in m.segments {
            switch s {
            case .property(let n), .typeCast(let n): parts.append(n)
            case .count: parts.append("$count")
            case .keyed(let n, let args): parts.append(n + ArgumentPrinter.print(args, version: v))
            case .function(let n, let args):
                var text = n + "("
                for (i, a) in args.enumerated() {
                    if i > 0 { text += "," }
                    text += a.name + "="
                    write(a.value, v, into: &text)
                }
                parts.append(text + ")")
            case .annotation(let t): parts.append("@" + t)
            case .filter(let e):
                var text = "$filter("
                write(e, v, into: &text)
                parts.append(text + ")")
            case .key(let args):
                // A key predicate attaches to the segment before it: $filter(…)(1), F(p=1)(2).
                let text = ArgumentPrinter.print(args, version: v)
                if parts.isEmpty { parts.append(text) } else { parts[parts.count - 1] += text }
            }
        }
        out += parts.joined(separator: "/")
        if let lambda = m.lambda {
            if !parts.isEmpty { out += "/" }
            out += lambda.kind.rawValue + "("
            if let variable = lambda.variable, let p = lambda.predicate {
                out += variable + ":"
                write(p, v, into: &out)
            }
            out += ")"
        }
    }
}

/// Prints key predicates and function parameters: `('x')`, `(a=1,b=@p)`, `()`.
public enum ArgumentPrinter {
    public static func print(_ args: SegmentArguments, version: ODataVersion?) -> String {
        switch args {
        case .empty: return "()"
        case .positional(let v): return "(" + value(v, version) + ")"
        case .named(let pairs): return "(" + pairs.map { $0.name + "=" + value($0.value, version) }.joined(separator: ",") + ")"
        }
    }

    static func value(_ v: ArgumentValue, _ version: ODataVersion?) -> String {
        switch v {
        case .literal(let l): return LiteralPrinter.print(l, version: version)
        case .alias(let a): return "@" + a
        }
    }
}
