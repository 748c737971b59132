// Journal: sending with and without journald, field checks, and the $JOURNAL_STREAM comparison.

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

@Suite struct JournalTests {
    @Test func sendSucceedsEvenWithoutJournald() throws {
        let fields = [
            ("MESSAGE", "SystemdKit test entry\nsecond line"), ("PRIORITY", "6"),
            ("SYSLOG_IDENTIFIER", "daysomed"), ("DAYSOME_LAY", "test"),
        ]
        // With journald the entry is stored; without it (this container) sd_journal_sendv drops it
        // and still returns 0 ("fail silently if the journal is not available"), so a daemon must
        // check `isAvailable` to know that it has to write stderr instead.
        try Journal.send(fields)
        var info = stat()
        let socketExists = stat(Journal.socketPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
        #expect(Journal.isAvailable == socketExists)
    }

    @Test func badFieldNamesAreRejectedBeforeSending() {
        #expect(throws: Errno.invalidArgument) { try Journal.send([]) }
        #expect(throws: Errno.invalidArgument) { try Journal.send([("", "x")]) }
        #expect(throws: Errno.invalidArgument) { try Journal.send([("A=B", "x")]) }
    }

    @Test func journalStreamComparesDeviceAndInode() throws {
        let directory = try TestDirectory()
        let file = try directory.write("stream", "")
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        #expect(Journal.isJournalStream("\(info.st_dev):\(info.st_ino)", fileDescriptor: fd))
        #expect(!Journal.isJournalStream("\(info.st_dev):\(info.st_ino + 1)", fileDescriptor: fd))
        #expect(!Journal.isJournalStream("garbage", fileDescriptor: fd))
        #expect(!Journal.isJournalStream("1:2:3", fileDescriptor: fd))
        #expect(!Journal.isJournalStream(nil, fileDescriptor: fd))
    }
}
