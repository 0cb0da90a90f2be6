/// Collects the string value of one element while it streams past, in the order
/// `XMLElement.allText` gives it: the element's own character data (all of its pieces), then
/// each child's string value in document order, recursively. Only one element is captured at a
/// time; its descendants are not otherwise looked at.
///
/// The buffers are kept between captures (no allocation per element once warm).
struct AtomTextCapture {
    private(set) var isActive = false
    /// Nesting below the captured element (0: the element itself).
    private var level = 0
    /// Per level: the own character data of the open element at that level.
    private var own: [[UInt8]] = [[]]
    /// Per level: the string values of that element's finished children, concatenated.
    private var children: [[UInt8]] = [[]]

    mutating func begin() {
        isActive = true
        level = 0
        own[0].removeAll(keepingCapacity: true)
        children[0].removeAll(keepingCapacity: true)
    }

    /// Stops capturing (the text collected so far is dropped).
    mutating func cancel() { isActive = false }

    @inline(__always)
    mutating func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        own[level].append(contentsOf: chunk)
    }

    mutating func childStart() {
        level += 1
        if own.count <= level {
            own.append([])
            children.append([])
        }
        own[level].removeAll(keepingCapacity: true)
        children[level].removeAll(keepingCapacity: true)
    }

    mutating func childEnd() {
        guard level > 0 else { return }
        let l = level
        level -= 1
        let text = own[l], grandchildren = children[l]
        children[l - 1].append(contentsOf: text)
        children[l - 1].append(contentsOf: grandchildren)
    }

    /// Ends the capture and calls `body` with the captured element's string value.
    mutating func finish<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        isActive = false
        level = 0
        if !children[0].isEmpty { own[0].append(contentsOf: children[0]) }
        return own[0].withUnsafeBufferPointer(body)
    }
}
