// daysomectl reads only the environment variables its commands use (issue 44: a String for each
// of a session's forty variables at every `pending` was a twentieth of its own work). A command
// that came to read another through `context.environment` would silently see it unset; this
// holds the list to what the sources read.

import DaysomeCLI
import DaysomeFiles
import Glibc
import Testing

@Suite("daysomectl's environment")
struct CommandContextTests {
    @Test("Every variable the tool's sources read from the environment dictionary is passed in")
    func everyVariableReadIsPassed() throws {
        var names: Set<String> = []
        var files = 0
        for module in ["DaysomeCLI", "DaysomeFiles"] {
            let directory = repositoryRoot + "/Sources/" + module
            let listing = try #require(opendir(directory))
            defer { closedir(listing) }
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard name.hasSuffix(".swift") else { continue }
                let text = String(decoding: try FileIO.read(directory + "/" + name, limit: 1 << 20), as: UTF8.self)
                for match in text.matches(of: #/(?:environment|env)\["([A-Z_]+)"\]/#) {
                    names.insert(String(match.output.1))
                }
                files += 1
            }
        }
        #expect(files > 20)
        #expect(names.contains("XDG_RUNTIME_DIR"), "the scan found none: \(names)")
        #expect(names.subtracting(CommandContext.variablesRead).isEmpty, "read but not passed: \(names)")
    }

    @Test("Only the variables asked for are read, each as set")
    func onlyTheVariablesAskedForAreRead() {
        setenv("DAYSOME_CONTEXT_TEST", "a=b", 1)
        defer { unsetenv("DAYSOME_CONTEXT_TEST") }
        let read = processEnvironment(only: ["DAYSOME_CONTEXT_TEST", "DAYSOME_CONTEXT_TEST_UNSET"])
        #expect(read == ["DAYSOME_CONTEXT_TEST": "a=b"])
        #expect(processEnvironment(only: ["HOME"])["HOME"] == processEnvironment()["HOME"])
    }
}
