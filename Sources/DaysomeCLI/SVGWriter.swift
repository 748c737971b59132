// SVG text, built safely: numbers without exponents, and every attribute value and text node
// escaped for XML (markup, and the characters XML forbids).

/// A number for an attribute: at most one decimal, no exponent.
func number(_ value: Double) -> String {
    let tenths = Int64((value * 10).rounded())
    let sign = tenths < 0 ? "-" : ""
    let magnitude = abs(tenths)
    return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
}

/// Text as XML character data or an attribute value: markup escaped, characters XML forbids replaced.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\n", "\r", "\t": out += " "
        default:
            let value = scalar.value
            if value < 0x20 || value == 0x7F || value == 0xFFFE || value == 0xFFFF {
                out += "\u{FFFD}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

/// Builds SVG text; every attribute value and every text node passes through `xmlEscaped`.
struct SVGWriter {
    var text = ""

    mutating func raw(_ markup: String) { self.text += markup }

    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        self.text += "<" + name + self.attributes(attributes) + ">\n"
    }

    mutating func close(_ name: String) { self.text += "</\(name)>\n" }

    mutating func element(_ name: String, text: String) {
        self.text += "<\(name)>\(xmlEscaped(text))</\(name)>\n"
    }

    mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil, radius: Double? = nil,
        opacity: Double? = nil
    ) {
        var list = [("x", number(x)), ("y", number(y)), ("width", number(width)), ("height", number(height))]
        if let radius { list.append(("rx", number(radius))) }
        list.append(("fill", fill))
        if let stroke { list += [("stroke", stroke), ("stroke-width", "1")] }
        if let opacity { list.append(("opacity", number(opacity))) }
        self.text += "<rect" + self.attributes(list) + "/>\n"
    }

    mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double, dash: String? = nil
    ) {
        var list = [
            ("x1", number(x1)), ("y1", number(y1)), ("x2", number(x2)), ("y2", number(y2)), ("stroke", stroke),
            ("stroke-width", number(width)),
        ]
        if let dash { list.append(("stroke-dasharray", dash)) }
        self.text += "<line" + self.attributes(list) + "/>\n"
    }

    mutating func circle(x: Double, y: Double, r: Double, fill: String, stroke: String, width: Double) {
        let list = [
            ("cx", number(x)), ("cy", number(y)), ("r", number(r)), ("fill", fill), ("stroke", stroke),
            ("stroke-width", number(width)),
        ]
        self.text += "<circle" + self.attributes(list) + "/>\n"
    }

    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, fill: String, weight: String? = nil,
        anchor: String? = nil, italic: Bool = false
    ) {
        var list = [("x", number(x)), ("y", number(y)), ("font-size", number(size)), ("fill", fill)]
        if let weight { list.append(("font-weight", weight)) }
        if let anchor { list.append(("text-anchor", anchor)) }
        if italic { list.append(("font-style", "italic")) }
        self.text += "<text" + self.attributes(list) + ">" + xmlEscaped(content) + "</text>\n"
    }

    func attributes(_ list: [(String, String)]) -> String {
        list.map { " \($0.0)=\"\(xmlEscaped($0.1))\"" }.joined()
    }
}
