// `daysomectl try`: one sample call now through the running daemon (the bell, and the call
// withdrawn after a short while), so a carer hears what she will hear.

import DaysomeCore
import DaysomeFiles

let tryVerb = VerbSpec(
    "try", options: daemonPathOptions,
    summary: "Play one sample call now through the running daemon, so a carer hears what she will hear.",
    details: "While the day display is in front, only the bell plays: nothing is ever shown over it.")

/// Runs `try`.
func runTry(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    let paths = paths(command, context)
    guard DaemonLock.isHeld(runtimeDirectory: paths.runtimeDirectory) else {
        return .failure(.failure, "no daemon is running for '\(paths.runtimeDirectory)'")
    }
    switch request(paths.controlSocket, ControlRequest.tryCall.line) {
    case .success(let reply): return CommandOutput(stdout: reply + "\n")
    case .failure(let error): return .failure(.failure, error.description)
    }
}
