import ODataStore
/// An app's `void *context`, carried through Swift code that requires Sendable values.
/// The library never dereferences it; the header's threading contract makes passing it to
/// callbacks on other threads the app's responsibility.
struct CContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
}

/// A C function pointer (or struct of them) carried in Sendable closures; safe because C
/// function pointers are immutable addresses.
struct CFunction<F>: @unchecked Sendable {
    let function: F
}
