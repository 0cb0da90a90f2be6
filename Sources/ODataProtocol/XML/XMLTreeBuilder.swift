/// Builds an `XMLElement` tree from parse events (used by `XMLDocument.parse`).
final class XMLTreeBuilder: XMLEventSink {
    private struct Frame {
        var tag: XMLStartTag
        var children: [XMLElement] = []
        var text: [UInt8] = []
    }

    private var stack: [Frame] = []
    private(set) var root: XMLElement?

    func startElement(_ tag: XMLStartTag) {
        stack.append(Frame(tag: tag))
    }

    func endElement(name: String, namespace: String) {
        guard let f = stack.popLast() else { return }
        let e = XMLElement(name: f.tag.name, namespace: f.tag.namespace, attributes: f.tag.attributes,
                           children: f.children, text: String(decoding: f.text, as: UTF8.self),
                           line: f.tag.line, column: f.tag.column)
        if stack.isEmpty {
            root = e
        } else {
            stack[stack.count - 1].children.append(e)
        }
    }

    func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text.append(contentsOf: chunk)
    }
}
