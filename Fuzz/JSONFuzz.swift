// Fuzz target `json`: any bytes through the strict JSON parser. A document that parses must
// serialize, compact and pretty, to text that parses back to an equal value.

import DaysomeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let value: JSONValue
    do {
        value = try JSONParser.parse(fuzzInput(data, size))
    } catch {
        require(!error.description.isEmpty, "empty parse error")
        return 0
    }
    for pretty in [false, true] {
        let text = value.serialized(pretty: pretty)
        do {
            let again = try JSONParser.parse(text)
            require(again == value, "serialized(pretty: \(pretty)) does not parse back to an equal value: \(text)")
        } catch {
            require(false, "serialized(pretty: \(pretty)) does not parse: \(error): \(text)")
        }
    }
    return 0
}
