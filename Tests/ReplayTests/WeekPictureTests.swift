// The week's picture: well-formed SVG with the family's text escaped, warm colours only (nothing
// blue, nothing red), the clock change marked, and a real converter that renders it to a PNG
// that is not blank.

import DaysomeCLI
import DaysomeCore
import DaysomeFiles
import Testing

@Suite("Week picture")
struct WeekPictureTests {
    let seed = loadFixture("households/seed.json")

    func seedWeek() -> String {
        let zone = self.seed.zone
        let result = Replay(
            household: self.seed, from: at("2026-10-22T00:00", zone), to: at("2026-10-29T00:00", zone),
            display: [
                DisplayChange(at: at("2026-10-27T12:59", zone), state: .foreground),
                DisplayChange(at: at("2026-10-27T13:05", zone), state: .away),
                DisplayChange(at: at("2026-10-28T16:20", zone), state: .foreground),
                DisplayChange(at: at("2026-10-28T18:00", zone), state: .away),
            ]
        ).run()
        return WeekPicture.replay(result, zone: zone, source: "seed.json").svg()
    }

    func hostileWeek() -> String {
        let home = loadFixture("households/hostile-labels.json")
        let result = Replay(
            household: home, from: at("2026-03-27T00:00", home.zone), to: at("2026-03-31T00:00", home.zone)
        ).run()
        return WeekPicture.replay(result, zone: home.zone, source: "hostile & <labels>.json").svg()
    }

    @Test("The SVG is well formed: one root, balanced elements, every label escaped")
    func wellFormed() throws {
        for svg in [self.seedWeek(), self.hostileWeek()] {
            #expect(svg.hasPrefix("<svg "))
            #expect(svg.hasSuffix("</svg>\n"))
            try checkBalanced(svg)
        }
        let hostile = self.hostileWeek()
        #expect(hostile.contains("&lt;b&gt;Fish &amp; chips&lt;/b&gt; &lt;i&gt;"))
        #expect(hostile.contains("hostile &amp; &lt;labels&gt;.json"))
        #expect(hostile.contains("Cake 🎂👩‍👩‍👧"))
        #expect(hostile.contains("\u{202E}Tea\u{202C} with שלום"))
        // Never truncated: the 200-character label is there whole on each of its four days,
        // wrapped onto lines no wider than the chart.
        let long = loadFixture("households/hostile-labels.json").items.first { $0.id == "long" }!.label
        let pieces = textNodes(hostile).filter { !$0.isEmpty && $0.allSatisfy { $0 == "L" || $0 == "l" } }
        #expect(pieces.joined() == String(repeating: long, count: 4))
        #expect(pieces.count > 4)
        #expect(!hostile.contains("<b>") && !hostile.contains("& "))
    }

    @Test("The day the clocks go back is marked and labelled; away and on-screen periods are shaded")
    func clockChangeAndShading() {
        let svg = self.seedWeek()
        #expect(svg.contains(">clocks go back</text>"))
        #expect(svg.contains(">02:00 → 01:00</text>"))
        #expect(svg.contains("fill=\"url(#dst)\""))
        #expect(svg.contains(">Sunday</text>"))
        #expect(svg.contains(">Lunch</text>"))
        #expect(svg.contains("display away"))
        #expect(svg.contains("day display on screen"))
        // Seven day rows, 00:00 to 24:00 across.
        #expect(svg.components(">25 October 2026</text>") == 1)
        #expect(svg.components(">24:00</text>") == 2)
        // Text is at least 11 px everywhere.
        for size in attributeValues(svg, "font-size") {
            #expect((Double(size) ?? 0) >= 11, "font-size \(size)")
        }
        #expect(svg.contains("sans-serif"))
    }

    @Test("Warm colours only: no colour in the file is blue (190-260°) or red (<15° or >345°) when saturated")
    func warmColours() {
        for svg in [self.seedWeek(), self.hostileWeek()] {
            let colours = hexColours(svg)
            #expect(colours.count >= 10)
            for colour in colours {
                let (hue, saturation) = hueAndSaturation(colour)
                let blue = hue >= 190 && hue <= 260
                let red = hue < 15 || hue > 345
                #expect(!((blue || red) && saturation > 0.3), "\(colour): hue \(Int(hue))°, saturation \(saturation)")
            }
            for attribute in ["fill", "stroke", "stop-color", "color"] {
                for value in attributeValues(svg, attribute) {
                    #expect(
                        value == "none" || value.hasPrefix("#") || value.hasPrefix("url(#"), "\(attribute)=\(value)")
                }
            }
        }
    }

    @Test("pending --svg draws the live queue of a running daemon, each start to its expiry")
    func pendingPicture() throws {
        let runtime = scratchDirectory()
        let lock = try DaemonLock(runtimeDirectory: runtime)
        defer { withExtendedLifetime(lock) {} }
        write(
            """
            { "backend": "wheel", "display": "away", "lay": 4, "daemonRunning": true, "pid": 1,
              "timeZone": "Europe/London",
              "pending": [
                { "lay": 4, "at": "2026-10-25T13:00:00Z", "local": "2026-10-25T13:00:00+00:00",
                  "itemIds": ["lunch"], "title": "Lunch & pudding", "handle": "wheel:7",
                  "expiresAt": "2026-10-25T13:45:00Z" },
                { "lay": 4, "at": "2026-10-26T16:00:00Z", "local": "2026-10-26T16:00:00+00:00",
                  "itemIds": ["drink"], "title": "A drink", "handle": "wheel:8",
                  "expiresAt": "2026-10-26T19:30:00Z" } ] }
            """, to: runtime + "/queue.json")
        let context = CommandContext(environment: [:], now: at("2026-10-25T09:00:00Z", self.seed.zone))
        let output = DaysomeCtl.run(
            ["pending", "--runtime-dir", runtime, "--svg", runtime + "/queue.svg"], context: context)
        #expect(output.status == .success, "\(output.stderr)")
        #expect(output.stdout.contains("2 starts pending"))
        let svg = String(decoding: try FileIO.read(runtime + "/queue.svg", limit: 1 << 20), as: UTF8.self)
        try checkBalanced(svg)
        #expect(svg.contains(">Lunch &amp; pudding</text>"))
        #expect(svg.contains(">A drink</text>"))
        #expect(svg.contains("laid, not yet due"))
        #expect(svg.contains(">clocks go back</text>"))
        // Without a live daemon there is no queue to draw.
        let dead = DaysomeCtl.run(
            ["pending", "--runtime-dir", scratchDirectory(), "--svg", runtime + "/none.svg"], context: context)
        #expect(dead.status == .failure)
        #expect(!FileIO.exists(runtime + "/none.svg"))
    }

    @Test(
        "rsvg-convert renders the week to a PNG that is not blank",
        .enabled(if: onPath("rsvg-convert") || inCI, "rsvg-convert is missing: apt-get install librsvg2-bin"))
    func rendersToPNG() throws {
        try #require(onPath("rsvg-convert"), "rsvg-convert (librsvg2-bin) is required in CI")
        let directory = scratchDirectory()
        write(self.seedWeek(), to: directory + "/week.svg")
        #expect(shell("rsvg-convert -o '\(directory)/week.png' '\(directory)/week.svg'") == 0)
        let bytes = try FileIO.read(directory + "/week.png", limit: 64 << 20)
        let image = try #require(PNGImage(bytes), "not an 8-bit RGB(A) PNG")
        #expect(image.width == 1500)
        #expect(image.height > 700)
        var counts: [UInt32: Int] = [:]
        for y in stride(from: 0, to: image.height, by: 2) {
            for x in stride(from: 0, to: image.width, by: 2) { counts[image.pixel(x, y), default: 0] += 1 }
        }
        let total = counts.values.reduce(0, +)
        let commonest = counts.values.max() ?? 0
        // Many colours (text is anti-aliased), and no single colour covers the picture.
        #expect(counts.count > 200, "\(counts.count) distinct pixel values")
        #expect(Double(commonest) / Double(total) < 0.9)
    }
}

// MARK: Reading the SVG back

/// Checks that elements nest and close, that every `&` starts an entity, and that no `<` is loose.
func checkBalanced(_ svg: String) throws {
    var stack: [String] = []
    var roots = 0
    let bytes = Array(svg.utf8)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "&") {
            let rest = bytes[index...].prefix(8)
            let entity = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains {
                rest.starts(with: Array($0.utf8))
            }
            #expect(entity, "a bare & at byte \(index)")
            index += 1
            continue
        }
        guard byte == UInt8(ascii: "<") else {
            index += 1
            continue
        }
        guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else {
            Issue.record("unclosed tag at byte \(index)")
            return
        }
        let tag = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
        #expect(!tag.contains("<"), "a < inside a tag at byte \(index)")
        let name = String(tag.prefix { $0 != " " && $0 != "/" && $0 != "\n" })
        if tag.hasPrefix("/") {
            let closing = String(tag.dropFirst())
            try #require(stack.last == closing, "</\(closing)> closes <\(stack.last ?? "nothing")>")
            stack.removeLast()
        } else if !tag.hasSuffix("/") {
            if stack.isEmpty { roots += 1 }
            stack.append(name)
        } else if stack.isEmpty {
            roots += 1
        }
        index = close + 1
    }
    #expect(stack.isEmpty, "unclosed: \(stack)")
    #expect(roots == 1)
}

/// The text of every `<text>` element, in order.
func textNodes(_ svg: String) -> [String] {
    var nodes: [String] = []
    var rest = Substring(svg)
    while let open = rest.firstRange(of: "<text ") {
        guard let start = rest[open.upperBound...].firstIndex(of: ">"),
            let end = rest[start...].firstRange(of: "</text>")
        else { break }
        nodes.append(String(rest[rest.index(after: start)..<end.lowerBound]))
        rest = rest[end.upperBound...]
    }
    return nodes
}

/// Every value of an attribute in the document.
func attributeValues(_ svg: String, _ name: String) -> [String] {
    let marker = " \(name)=\""
    var values: [String] = []
    var rest = Substring(svg)
    while let range = rest.firstRange(of: marker) {
        let after = rest[range.upperBound...]
        guard let quote = after.firstIndex(of: "\"") else { break }
        values.append(String(after[..<quote]))
        rest = after[quote...]
    }
    return values
}

/// Every `#RRGGBB` and `#RGB` colour in the document.
func hexColours(_ svg: String) -> [String] {
    let characters = Array(svg)
    var colours: [String] = []
    var index = 0
    while index < characters.count {
        if characters[index] == "#" {
            var end = index + 1
            while end < characters.count, characters[end].isHexDigit, end - index <= 6 { end += 1 }
            let digits = end - index - 1
            let bounded = end >= characters.count || !(characters[end].isLetter || characters[end].isNumber)
            if (digits == 6 || digits == 3) && bounded { colours.append(String(characters[index..<end])) }
            index = end
        } else {
            index += 1
        }
    }
    return colours
}

/// Hue in degrees and HSV saturation of a `#RRGGBB` or `#RGB` colour.
func hueAndSaturation(_ colour: String) -> (Double, Double) {
    var digits = String(colour.dropFirst())
    if digits.count == 3 { digits = digits.map { "\($0)\($0)" }.joined() }
    let value = Int(digits, radix: 16) ?? 0
    let r = Double((value >> 16) & 0xFF) / 255
    let g = Double((value >> 8) & 0xFF) / 255
    let b = Double(value & 0xFF) / 255
    let high = max(r, g, b)
    let low = min(r, g, b)
    let delta = high - low
    guard delta > 0 else { return (0, 0) }
    var hue: Double
    if high == r {
        hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6)
    } else if high == g {
        hue = 60 * ((b - r) / delta + 2)
    } else {
        hue = 60 * ((r - g) / delta + 4)
    }
    if hue < 0 { hue += 360 }
    return (hue, delta / high)
}

extension String {
    /// How many times a piece of text occurs.
    func components(_ piece: String) -> Int {
        var count = 0
        var rest = Substring(self)
        while let range = rest.firstRange(of: piece) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
