// Fuzz target `display-state`: any bytes as the display state file's line. A line that parses
// must be written back by `.line` as a line that parses to the same value.

import DaysomeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func displayStateFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    guard let parsed = DisplayStateLine(parsing: text) else { return 0 }
    let line = parsed.line
    require(DisplayStateLine(parsing: line) == parsed, "\(line.debugDescription) does not parse back to \(parsed)")
    let newlines = line.utf8.filter { $0 == 0x0A }.count
    require(line.hasSuffix("\n") && newlines == 1, "\(line.debugDescription) is not one line")
    return 0
}
