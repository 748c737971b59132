// A file's bytes kept with the value they were serialized from. The daemon writes some files
// again with nothing changed: a state write the full disk refused is retried once a minute
// (lay.json, its runtime copy, the history lines behind, the household's copy), each the same
// bytes as the last time while nothing changed. Comparing the value is cheaper than serializing it.

/// The bytes last serialized, and the value they were serialized from.
package struct SerializedOnce<Value: Equatable> {
    private var value: Value?
    private var bytes: [UInt8] = []

    package init() {}

    /// The bytes of `value`: serialized by `serialize` unless they are `value`'s already.
    package mutating func bytes(of value: Value, _ serialize: (Value) -> [UInt8]) -> [UInt8] {
        if value != self.value {
            self.bytes = serialize(value)
            self.value = value
        }
        return self.bytes
    }

    /// Keeps nothing: once written, a file's bytes need not stay resident.
    package mutating func forget() {
        self.value = nil
        self.bytes = []
    }
}
