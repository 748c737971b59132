// directory(of:) and basename(of:) against what POSIX dirname(3) and basename(3) answer, as a table.

import DaysomeFiles
import Testing

@Suite("Path names")
struct PathNamesTests {
    /// (path, directory, last component), each row as POSIX answers it.
    static let rows: [(String, String, String)] = [
        ("a/", ".", "a"),  // a trailing slash is not a component
        ("/", "/", "/"),  // the root is its own directory and name
        ("a", ".", "a"),  // a bare name lives in the current directory
        ("/a/b", "/a", "b"),
        ("a//b", "a", "b"),  // repeated slashes are one
        ("/a", "/", "a"),
        ("//a//", "/", "a"),
        ("a/b/", "a", "b"),
        ("", ".", "."),
        ("///", "/", "/"),
        ("/run/user/1000/daysome/display-state", "/run/user/1000/daysome", "display-state"),
    ]

    @Test(arguments: Self.rows.indices)
    func answersAsPOSIX(_ row: Int) {
        let (path, parent, last) = Self.rows[row]
        #expect(directory(of: path) == parent, "directory of '\(path)'")
        #expect(basename(of: path) == last, "last component of '\(path)'")
    }
}
