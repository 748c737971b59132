// BusMessage and BusVariant: every appended type reads back (a sealed, rewound message), with
// containers, peeking and skipping; a message needs an open bus, so a private one is started.

import DaysomeCore
import Glibc
import Testing

@testable import SystemdKit

@Suite struct BusMessageTests {
    /// A message on a fresh private bus; the services stay alive as long as the message is used.
    private func withMessage(_ body: (BusMessage) throws -> Void) throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try Bus.open(address: try services.startSessionBus().address)
        let message = try bus.newMethodCall(
            destination: "org.example.Peer",
            path: "/org/example",
            interface: "org.example.Iface",
            member: "Do"
        )
        try body(message)
    }

    @Test func basicTypesReadBack() throws {
        try withMessage { message in
            try message.append("text")
            try message.append(true)
            try message.append(UInt8(7))
            try message.append(Int32(-3))
            try message.append(UInt32(4_000_000_000))
            try message.append(Int64.min)
            try message.append(UInt64.max)
            try message.append(2.5)
            try message.append(objectPath: "/org/freedesktop/Notifications")
            try message.appendStringArray(["a", "b"])
            try message.sealForReading()
            #expect(message.signature == "sbyiuxtdoas")
            #expect(message.member == "Do")
            #expect(message.path == "/org/example")
            #expect(message.interface == "org.example.Iface")
            #expect(!message.isMethodError)
            #expect(message.errorName == nil)
            #expect(try message.readString() == "text")
            #expect(try message.readBool())
            #expect(try message.readByte() == 7)
            #expect(try message.readInt32() == -3)
            #expect(try message.readUInt32() == 4_000_000_000)
            #expect(try message.readInt64() == Int64.min)
            #expect(try message.readUInt64() == UInt64.max)
            #expect(try message.readDouble() == 2.5)
            #expect(try message.readObjectPath() == "/org/freedesktop/Notifications")
            #expect(try message.readStringArray() == ["a", "b"])
            #expect(try message.peekType() == nil)
            #expect(throws: Errno(rawValue: ENXIO)) { _ = try message.readString() }
        }
    }

    @Test func variantsAndDictionariesReadBack() throws {
        let hints: [(String, BusVariant)] = [
            ("urgency", .byte(2)), ("category", .string("im.received")), ("resident", .bool(true)),
            ("x", .int32(-1)), ("id", .uint32(9)), ("t", .uint64(1 << 40)), ("n", .int64(-5)),
            ("d", .double(0.5)), ("p", .objectPath("/a")), ("list", .stringArray(["x", "y"])),
        ]
        try withMessage { message in
            try message.appendVariantDictionary(hints)
            try message.appendVariant(.string("alone"))
            try message.openContainer("r", "su")
            try message.append("in-struct")
            try message.append(UInt32(1))
            try message.closeContainer()
            try message.sealForReading()
            #expect(message.signature == "a{sv}v(su)")

            let peeked = try message.peekType()
            #expect(peeked?.type == "a" && peeked?.contents == "{sv}")
            #expect(try message.enterContainer("a", "{sv}"))
            var read: [(String, BusVariant)] = []
            while try message.enterContainer("e", "sv") {
                read.append((try message.readString(), try message.readVariant()))
                try message.exitContainer()
            }
            try message.exitContainer()
            #expect(read.map(\.0) == hints.map(\.0))
            #expect(read.map(\.1) == hints.map(\.1))

            #expect(try message.readVariant() == .string("alone"))
            try message.skip("(su)")
            #expect(try message.peekType() == nil)
        }
    }

    @Test func wrongTypeIsRefused() throws {
        try withMessage { message in
            try message.append(UInt32(1))
            try message.sealForReading()
            #expect(throws: Errno(rawValue: ENXIO)) { _ = try message.readString() }
            #expect(try message.readUInt32() == 1)
        }
    }

    @Test func invalidObjectPathIsRefused() throws {
        try withMessage { message in
            #expect(throws: Errno.invalidArgument) { try message.append(objectPath: "not/a/path") }
        }
    }

    /// The call's text (`Content.busSendable`) replaces exactly what this libsystemd refuses: were
    /// the rule to miss a scalar, a family's label would be refused; were it to take too many, a
    /// word she could have read would be replaced.
    @Test(
        "sd-bus carries every scalar the call's text keeps, refuses each noncharacter it replaces, and cuts at U+0000")
    func theBusCarriesExactlyWhatTheCallTextKeeps() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try Bus.open(address: try services.startSessionBus().address)
        let newMessage = {
            try bus.newMethodCall(
                destination: "org.example.Peer", path: "/org/example", interface: "org.example.Iface", member: "Do")
        }
        var carried = String.UnicodeScalarView()
        var replaced: [Unicode.Scalar] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if Content.busCarries(scalar) { carried.append(scalar) } else { replaced.append(scalar) }
        }
        #expect(replaced.count == 67, "66 noncharacters and U+0000")
        let whole = try newMessage()
        try whole.append(String(carried))
        try whole.sealForReading()
        #expect(try whole.readString() == String(carried))
        for scalar in replaced where scalar.value != 0 {
            #expect(throws: Errno.invalidArgument, "U+\(String(scalar.value, radix: 16))") {
                try newMessage().append("Lun" + String(Character(scalar)) + "ch")
            }
        }
        let cut = try newMessage()
        try cut.append("Lun\u{0}ch")
        try cut.sealForReading()
        #expect(try cut.readString() == "Lun")
    }
}
