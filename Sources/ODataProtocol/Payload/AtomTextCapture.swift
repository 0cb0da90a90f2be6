/// Collects the string value of one element while it streams past, in the order
/// `XMLElement.allText` gives it: the element's own character data (all of its pieces), then
/// each child's string value in document order, recursively. Only one element is captured at a
/// time; its descendants are not otherwise looked at.
///
/// The buffers are kept between captures (no allocation per element once warm); the common
/// case, an element without children, only touches `own`.
struct AtomTextCapture {
    private(set) var isActive = false
    /// Nesting below the captured element (0: the element itself).
    private var level = 0
    /// The captured element's own character data.
    private var own = AtomByteWriter(capacity: 256)
    /// The string values of its finished children, concatenated.
    private var children: [UInt8] = []
    /// Per level below it (index `level - 1`): the open descendant's own text, and the string
    /// values of its finished children.
    private var nestedOwn: [[UInt8]] = []
    private var nestedChildren: [[UInt8]] = []

    mutating func begin() {
        isActive = true
        level = 0
        own.truncate(to: 0)
        if !children.isEmpty { children.removeAll(keepingCapacity: true) }
    }

    /// Stops capturing (the text collected so far is dropped).
    mutating func cancel() { isActive = false }

    @inline(__always)
    mutating func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        if level == 0 { own.append(chunk) } else { nestedOwn[level - 1].append(contentsOf: chunk) }
    }

    mutating func childStart() {
        level += 1
        if nestedOwn.count < level {
            nestedOwn.append([])
            nestedChildren.append([])
        }
        nestedOwn[level - 1].removeAll(keepingCapacity: true)
        nestedChildren[level - 1].removeAll(keepingCapacity: true)
    }

    mutating func childEnd() {
        guard level > 0 else { return }
        let text = nestedOwn[level - 1], grandchildren = nestedChildren[level - 1]
        level -= 1
        if level == 0 {
            children.append(contentsOf: text)
            children.append(contentsOf: grandchildren)
        } else {
            nestedChildren[level - 1].append(contentsOf: text)
            nestedChildren[level - 1].append(contentsOf: grandchildren)
        }
    }

    /// Ends the capture and calls `body` with the captured element's string value.
    mutating func finish<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        isActive = false
        level = 0
        if !children.isEmpty { own.append(children) }
        return body(own.span(0..<own.count))
    }
}
