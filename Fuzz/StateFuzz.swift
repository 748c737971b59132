// Fuzz target `state`: any bytes as a state file the daemon reads back at start-up (lay.json,
// or a history line). Reading never traps; a lay.json that decodes is written back as JSON that
// decodes to the same state, and a history line that reads is written back the same.

import DaysomeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func stateFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard let json = try? JSONParser.parse(bytes) else { return 0 }
    if let state = try? PersistedState(decoding: json) {
        let again = try? PersistedState(decoding: state.json)
        require(again == state, "lay.json does not read back the same: \(state.json.serialized())")
    }
    if let record = try? HistoryRecord(json: json) {
        require(
            (try? HistoryRecord(json: record.json)) == record,
            "history line does not read back: \(record.json.serialized())")
    }
    return 0
}
