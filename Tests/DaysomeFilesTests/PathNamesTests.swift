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

@Suite("Relative path options made absolute")
struct AbsolutePathTests {
    /// (path, working directory, absolute path).
    static let rows: [(String, String, String)] = [
        ("state", "/home/ann", "/home/ann/state"),
        ("./state", "/home/ann", "/home/ann/state"),  // a leading ./ is dropped
        ("././/state/", "/home/ann/", "/home/ann/state/"),  // repeated, with the slashes after it
        ("../run", "/home/ann", "/home/ann/../run"),  // .. is kept: only the file system knows where it leads
        ("/var/state", "/home/ann", "/var/state"),  // an absolute path is kept as given
        (".", "/home/ann", "/home/ann"),
        ("state", "/", "/state"),
    ]

    @Test(arguments: Self.rows.indices)
    func aRelativePathIsResolvedAgainstTheWorkingDirectoryAtStart(_ row: Int) {
        let (path, cwd, expected) = Self.rows[row]
        #expect(absolutePath(path, in: cwd) == expected, "'\(path)' in '\(cwd)'")
    }
}
