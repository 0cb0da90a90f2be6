/// Collects parse events in order for `XMLPushParser`/`XMLPullReader`, merging adjacent
/// character data into one `.text` event (emitted when the next tag arrives).
final class XMLEventQueue: XMLEventSink {
    private var events: [XMLEvent] = []
    private var head = 0
    private var pendingText: [UInt8] = []
    private var depth = 0

    var isEmpty: Bool { head >= events.count }

    func startElement(_ tag: XMLStartTag) {
        flushText()
        depth += 1
        events.append(.start(tag))
    }

    func endElement(name: String, namespace: String) {
        flushText()
        depth -= 1
        events.append(.end(name: name, namespace: namespace))
    }

    func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard depth > 0 else { return }  // text outside the root element is not reported
        pendingText.append(contentsOf: chunk)
    }

    func next() -> XMLEvent? {
        guard head < events.count else { return nil }
        let e = events[head]
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return e
    }

    private func flushText() {
        guard !pendingText.isEmpty else { return }
        events.append(.text(String(decoding: pendingText, as: UTF8.self)))
        pendingText.removeAll(keepingCapacity: true)
    }
}
