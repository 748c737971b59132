// Inotify: the event and mask types of EventLoop.addInotify. The inotify fd itself belongs to
// sd-event (one per loop and priority); this file only copies the kernel's `struct inotify_event`
// (whose name is a flexible array) into Swift values. No watch descriptors, no cookies.

import CSystemd
import Glibc

/// inotify event bits, as a watch mask and as the mask of a reported event.
public struct InotifyMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// IN_MODIFY: a file was written.
    public static var modify: InotifyMask { InotifyMask(rawValue: UInt32(IN_MODIFY)) }
    /// IN_ATTRIB: metadata changed.
    public static var attrib: InotifyMask { InotifyMask(rawValue: UInt32(IN_ATTRIB)) }
    /// IN_CLOSE_WRITE: a file opened for writing was closed.
    public static var closeWrite: InotifyMask { InotifyMask(rawValue: UInt32(IN_CLOSE_WRITE)) }
    /// IN_MOVED_FROM: a file was renamed away from the watched directory.
    public static var movedFrom: InotifyMask { InotifyMask(rawValue: UInt32(IN_MOVED_FROM)) }
    /// IN_MOVED_TO: a file was renamed into the watched directory.
    public static var movedTo: InotifyMask { InotifyMask(rawValue: UInt32(IN_MOVED_TO)) }
    /// IN_CREATE: a file was created in the watched directory.
    public static var create: InotifyMask { InotifyMask(rawValue: UInt32(IN_CREATE)) }
    /// IN_DELETE: a file was deleted from the watched directory.
    public static var delete: InotifyMask { InotifyMask(rawValue: UInt32(IN_DELETE)) }
    /// IN_DELETE_SELF: the watched path itself was deleted.
    public static var deleteSelf: InotifyMask { InotifyMask(rawValue: UInt32(IN_DELETE_SELF)) }
    /// IN_MOVE_SELF: the watched path itself was moved.
    public static var moveSelf: InotifyMask { InotifyMask(rawValue: UInt32(IN_MOVE_SELF)) }
    /// IN_ONLYDIR (watch flag): fail unless the path is a directory.
    public static var onlyDirectory: InotifyMask { InotifyMask(rawValue: UInt32(IN_ONLYDIR)) }
    /// IN_IGNORED (event flag): the watch was removed.
    public static var ignored: InotifyMask { InotifyMask(rawValue: UInt32(IN_IGNORED)) }
    /// IN_ISDIR (event flag): the subject of the event is a directory.
    public static var isDirectory: InotifyMask { InotifyMask(rawValue: UInt32(IN_ISDIR)) }
    /// IN_Q_OVERFLOW (event flag): events were lost; rescan.
    public static var queueOverflow: InotifyMask { InotifyMask(rawValue: UInt32(IN_Q_OVERFLOW)) }
}

/// One inotify event, copied out of the kernel's buffer.
public struct InotifyEvent: Sendable, Hashable {
    /// What happened.
    public var mask: InotifyMask
    /// The name of the file inside a watched directory; `nil` for events on the path itself.
    public var name: String?

    /// Creates an event (for tests and callers that synthesize events).
    public init(mask: InotifyMask, name: String?) {
        self.mask = mask
        self.name = name
    }

    /// Copies an event; its name follows the fixed part and is NUL-padded to `len` bytes.
    init(_ event: UnsafePointer<inotify_event>) {
        self.mask = InotifyMask(rawValue: event.pointee.mask)
        let length = Int(event.pointee.len)
        if length == 0 {
            self.name = nil
            return
        }
        let bytes = UnsafeRawPointer(event).advanced(by: MemoryLayout<inotify_event>.size)
            .assumingMemoryBound(to: UInt8.self)
        let buffer = UnsafeBufferPointer(start: bytes, count: length)
        let end = buffer.firstIndex(of: 0) ?? length
        self.name = String(decoding: buffer[..<end], as: UTF8.self)
    }
}
