import DaysomeCore
import Testing

/// Parses or records the error, so tests can check kind, offset, line and column together.
private func parseError(_ bytes: [UInt8], maxDepth: Int = 64) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String, maxDepth: Int = 64) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

private func object(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
    .object(JSONObject(members))
}

@Suite struct ParsingTests {
    @Test func parsesScalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("42") == .number(42))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse(" \t\r\n 7 \t\r\n ") == .number(7))
    }

    @Test func parsesNestedDocumentInFileOrder() throws {
        let value = try JSONParser.parse(#"{"z": [1, {"y": null}], "a": {"b": "c"}, "m": []}"#)
        let expected = object([
            ("z", .array([.number(1), object([("y", .null)])])),
            ("a", object([("b", .string("c"))])),
            ("m", .array([])),
        ])
        #expect(value == expected)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
    }

    @Test func duplicateKeysAreKeptAndSubscriptReturnsTheLast() throws {
        let value = try JSONParser.parse(#"{"a": 1, "b": 2, "a": 3}"#)
        let parsed = try #require(value.objectValue)
        #expect(parsed["a"] == .number(3))
        #expect(parsed["b"] == .number(2))
        #expect(parsed["missing"] == nil)
        #expect(parsed.keys == ["a", "b", "a"])
        #expect(value.serialized() == #"{"a":1,"b":2,"a":3}"#)
    }

    @Test func objectEqualityIsOrderSensitive() {
        let ab = JSONObject([("a", .number(1)), ("b", .number(2))])
        let ba = JSONObject([("b", .number(2)), ("a", .number(1))])
        #expect(ab != ba)
        #expect(ab == JSONObject([("a", .number(1)), ("b", .number(2))]))
        #expect(JSONObject() == JSONObject([]))
    }

    @Test func stringAndByteEntryPointsAgree() throws {
        let text = #"{"k": ["é", 1.5, false]}"#
        #expect(try JSONParser.parse(text) == JSONParser.parse(Array(text.utf8)))
    }

    @Test func leadingByteOrderMarkIsSkipped() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number(1)]))
        #expect(try JSONParser.parse("\u{FEFF}{}") == .object(JSONObject()))
        #expect(parseError([0xEF, 0xBB, 0xBF])?.kind == .empty)
        let late = parseError([0xEF, 0xBB, 0xBF] + Array("x".utf8))
        #expect(late == JSONParseError(kind: .unexpectedCharacter(0x78), offset: 3, line: 1, column: 4))
        #expect(parseError([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x31])?.kind == .unexpectedCharacter(0xEF))
        #expect(parseError(" \u{FEFF}1")?.kind == .unexpectedCharacter(0xEF))
    }

    @Test func allSimpleEscapesDecode() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t"))
    }

    @Test func escapesInterleavedWithPlainRunsDecode() throws {
        #expect(try JSONParser.parse(#""ab\ncd\u00e9ef\"\\""#) == .string("ab\ncdéef\"\\"))
        #expect(
            try JSONParser.parse(#"["\t", "plain", "x\/y"]"#)
                == .array([.string("\t"), .string("plain"), .string("x/y")]))
    }

    @Test func unicodeEscapesDecodeInEitherCase() throws {
        #expect(try JSONParser.parse(#""\u00e9\u00E9\u20AC\u0041""#) == .string("éé€A"))
    }

    @Test func surrogatePairsCombine() throws {
        #expect(try JSONParser.parse(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try JSONParser.parse(#""a\ud834\udd1eb""#) == .string("a𝄞b"))
        #expect(try JSONParser.parse(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
    }

    /// A surrogate without its pair is no scalar: it stands as U+FFFD, and what follows it is read
    /// as it comes (a pair after a lone high surrogate still joins).
    @Test(arguments: [
        (#""\uD800""#, "\u{FFFD}"),
        (#""\udc00""#, "\u{FFFD}"),
        (#""Lunch \ud800""#, "Lunch \u{FFFD}"),
        (#""x\uDE00\uD83D""#, "x\u{FFFD}\u{FFFD}"),
        (#""\uD83D\uD83D""#, "\u{FFFD}\u{FFFD}"),
        (#""\uD83D\uD83D\uDE00""#, "\u{FFFD}😀"),
        (#""\uD83Dx""#, "\u{FFFD}x"),
        (#""\uD83D\n""#, "\u{FFFD}\n"),
        (#""\uD83D\u0041""#, "\u{FFFD}A"),
        (#""\uDE00\uD83D""#, "\u{FFFD}\u{FFFD}"),
        (#""\uD83D\uDBFF\uDFFF!""#, "\u{FFFD}\u{10FFFF}!"),
    ])
    func aLoneOrMismatchedSurrogateStandsAsTheReplacementCharacter(text: String, expected: String) throws {
        #expect(try JSONParser.parse(text) == .string(expected))
    }

    @Test func aLoneSurrogateAnywhereLeavesTheRestOfTheDocumentWhole() throws {
        let parsed = try JSONParser.parse(#"{ "a\udc00": ["\ud800", 1], "b": "ok" }"#)
        #expect(
            parsed
                == .object(
                    JSONObject([("a\u{FFFD}", .array([.string("\u{FFFD}"), .number(1)])), ("b", .string("ok"))])))
    }

    @Test func anEscapeAfterALoneSurrogateIsStillCheckedWhereItStands() {
        #expect(parseError(#""\uD83D\u12G4""#) == JSONParseError(kind: .invalidEscape, offset: 7, line: 1, column: 8))
        #expect(parseError(#""\uD83D\"#)?.kind == .unexpectedEnd)
        #expect(parseError(#""\uD83D"#)?.kind == .unexpectedEnd)
    }

    @Test func rawNulIsRejectedButEscapedNulIsAllowed() throws {
        #expect(try JSONParser.parse(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(parseError([0x22, 0x61, 0x00, 0x62, 0x22])?.kind == .controlCharacterInString)
        #expect(parseError([0x22, 0x61, 0x00, 0x62, 0x22])?.offset == 2)
        #expect(parseError([0x5B, 0x00, 0x5D])?.kind == .unexpectedCharacter(0x00))
        #expect(parseError([0x00])?.kind == .unexpectedCharacter(0x00))
    }

    @Test func rawControlCharactersInStringsAreRejectedEvenAfterEscapes() {
        #expect(parseError("\"a\tb\"")?.kind == .controlCharacterInString)
        #expect(
            parseError("\"\\n\nb\"") == JSONParseError(kind: .controlCharacterInString, offset: 3, line: 1, column: 4))
        #expect(parseError("\"\u{1F}\"")?.kind == .controlCharacterInString)
    }

    @Test func deleteAndNonAsciiAreAllowedRawInStrings() throws {
        #expect(try JSONParser.parse("\"\u{7F}é€😀\u{2028}\"") == .string("\u{7F}é€😀\u{2028}"))
    }

    @Test func onlyFourWhitespaceCharactersAreAccepted() {
        #expect(parseError("[1,\u{0B}2]")?.kind == .unexpectedCharacter(0x0B))
        #expect(parseError("[1,\u{0C}2]")?.kind == .unexpectedCharacter(0x0C))
        #expect(parseError("\u{A0}1")?.kind == .unexpectedCharacter(0xC2))
    }

    @Test(arguments: [
        "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}",
    ])
    func boundaryScalarsInUTF8AreAccepted(scalar: String) throws {
        #expect(try JSONParser.parse(Array("\"\(scalar)\"".utf8)) == .string(scalar))
    }

    @Test(
        arguments: [
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
            ([0x22, 0xC1, 0xBF, 0x22], 1),  // overlong 2-byte
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong 3-byte
            ([0x22, 0xE0, 0x9F, 0xBF, 0x22], 1),  // overlong 3-byte, top edge
            ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),  // overlong 4-byte
            ([0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], 1),  // overlong 4-byte, top edge
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // U+D800 encoded directly
            ([0x22, 0xED, 0xBF, 0xBF, 0x22], 1),  // U+DFFF encoded directly
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // U+110000
            ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),  // lead byte beyond F4
            ([0x22, 0xFF, 0x22], 1),
            ([0x22, 0xFE, 0x22], 1),
            ([0x22, 0x80, 0x22], 1),  // stray continuation byte
            ([0x22, 0xC3, 0x28, 0x22], 1),  // continuation missing
            ([0x22, 0xE2, 0x82, 0x22], 1),  // 3-byte sequence cut short by the quote
            ([0x22, 0xE2, 0x82], 1),  // truncated at end of input
            ([0x22, 0xF0, 0x9F, 0x98], 1),  // truncated 4-byte sequence
            ([0x22, 0xF0, 0x9F, 0x98, 0x41, 0x22], 1),  // bad fourth byte
            (Array(repeating: 0x20, count: 20) + [0x22, 0x61, 0xC3], 22),  // after an 8-byte-stride ASCII run
            ([0x5D, 0x20, 0xFF], 2),  // reported before the syntax error, since validation comes first
            ([0x31, 0x0A, 0x0A, 0x22, 0x80], 4),
        ] as [([UInt8], Int)])
    func invalidUTF8IsRejectedAtTheBadSequence(bytes: [UInt8], offset: Int) {
        let error = parseError(bytes)
        #expect(error?.kind == .invalidUTF8)
        #expect(error?.offset == offset)
    }

    @Test func invalidUTF8ReportsLineAndColumn() {
        let error = parseError(Array("[\n1,\n\"abcde".utf8) + [0xFF, 0x22, 0x5D])
        #expect(error == JSONParseError(kind: .invalidUTF8, offset: 11, line: 3, column: 7))
        #expect(error?.description == "invalid UTF-8 at line 3, column 7")
    }
}

@Suite struct NumberTests {
    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("1", 1), ("-1", -1), ("123", 123), ("1.5", 1.5), ("-1.5", -1.5),
        ("0.5", 0.5), ("1e3", 1000), ("1E3", 1000), ("1e+3", 1000), ("1e-3", 0.001), ("1.5e10", 1.5e10),
        ("0e0", 0), ("-0.0e-0", -0.0), ("2.5E-3", 0.0025), ("123456789012345", 123_456_789_012_345),
        ("1234567890123456789", 1_234_567_890_123_456_768), ("9007199254740993", 9_007_199_254_740_992),
        ("-9007199254740993", -9_007_199_254_740_992), ("1e308", 1e308), ("-1e308", -1e308),
        ("1.7976931348623157e308", .greatestFiniteMagnitude), ("4.9e-324", .leastNonzeroMagnitude),
        ("1e-400", 0), ("0.1000000000000000055511151231257827", 0.1), ("100000000000000000000000", 1e23),
    ])
    func validNumbersFollowTheGrammar(text: String, expected: Double) throws {
        let value = try #require(try JSONParser.parse(text).doubleValue)
        #expect(value == expected)
        #expect(value.sign == expected.sign)
    }

    @Test(arguments: [
        ("01", JSONParseError.Kind.invalidNumber, 1), ("-01", .invalidNumber, 2), ("00", .invalidNumber, 1),
        ("1.", .invalidNumber, 2), ("1.e5", .invalidNumber, 2), ("1e", .invalidNumber, 2),
        ("1e+", .invalidNumber, 3), ("1E-x", .invalidNumber, 3), ("-", .invalidNumber, 1), ("-a", .invalidNumber, 1),
        ("- 1", .invalidNumber, 1), ("-Infinity", .invalidNumber, 1), ("1e400", .invalidNumber, 0),
        ("-1e400", .invalidNumber, 0), ("[1, 2e999]", .invalidNumber, 4), ("[01]", .invalidNumber, 2),
        ("+1", .unexpectedCharacter(0x2B), 0), (".5", .unexpectedCharacter(0x2E), 0),
        ("NaN", .unexpectedCharacter(0x4E), 0), ("Infinity", .unexpectedCharacter(0x49), 0),
        ("0x10", .trailingContent, 1), ("1.5.3", .trailingContent, 3), ("1_000", .trailingContent, 1),
        ("[1x]", .unexpectedCharacter(0x78), 2),
    ])
    func invalidNumbersAreRejected(text: String, kind: JSONParseError.Kind, offset: Int) {
        let error = parseError(text)
        #expect(error?.kind == kind)
        #expect(error?.offset == offset)
    }

    @Test func veryLongNumberTextConverts() throws {
        let digits = "1" + String(repeating: "0", count: 300)
        #expect(try JSONParser.parse(digits) == .number(1e300))
        #expect(try JSONParser.parse("0." + String(repeating: "0", count: 5000) + "1") == .number(0))
    }
}

@Suite struct ErrorTests {
    @Test(arguments: [
        ("", JSONParseError.Kind.empty, 0, 1, 1),
        ("  \n ", .empty, 4, 2, 2),
        ("[1,2", .unexpectedEnd, 4, 1, 5),
        ("\"abc", .unexpectedEnd, 4, 1, 5),
        ("tru", .unexpectedEnd, 3, 1, 4),
        ("{\"a\":", .unexpectedEnd, 5, 1, 6),
        ("\"\\u12", .unexpectedEnd, 5, 1, 6),
        ("\"\\uD83D", .unexpectedEnd, 7, 1, 8),
        ("\"\\uD83D\\", .unexpectedEnd, 8, 1, 9),
        ("\"\\", .unexpectedEnd, 2, 1, 3),
        ("[1,\n  }", .unexpectedCharacter(0x7D), 6, 2, 3),
        ("\n\n[1,]", .unexpectedCharacter(0x5D), 5, 3, 4),
        ("\r\nx", .unexpectedCharacter(0x78), 2, 2, 1),
        ("nul1", .unexpectedCharacter(0x31), 3, 1, 4),
        ("{\"a\" 1}", .unexpectedCharacter(0x31), 5, 1, 6),
        ("{1:2}", .unexpectedCharacter(0x31), 1, 1, 2),
        ("{\"a\":1,}", .unexpectedCharacter(0x7D), 7, 1, 8),
        ("[1 2]", .unexpectedCharacter(0x32), 3, 1, 4),
        ("[1}", .unexpectedCharacter(0x7D), 2, 1, 3),
        ("{\"a\":1]", .unexpectedCharacter(0x5D), 6, 1, 7),
        ("'a'", .unexpectedCharacter(0x27), 0, 1, 1),
        ("[\n01]", .invalidNumber, 3, 2, 2),
        ("\"a\\x\"", .invalidEscape, 2, 1, 3),
        ("\"\\u12G4\"", .invalidEscape, 1, 1, 2),
        ("\"\\U0041\"", .invalidEscape, 1, 1, 2),
        ("\"\\'\"", .invalidEscape, 1, 1, 2),
        ("\"a\u{01}\"", .controlCharacterInString, 2, 1, 3),
        ("1 2", .trailingContent, 2, 1, 3),
        ("[1]]", .trailingContent, 3, 1, 4),
        ("{}\n\n  x", .trailingContent, 6, 3, 3),
    ])
    func errorKindsCarryOffsetLineAndColumn(
        text: String, kind: JSONParseError.Kind, offset: Int, line: Int, column: Int
    ) {
        #expect(parseError(text) == JSONParseError(kind: kind, offset: offset, line: line, column: column))
    }

    @Test func descriptionsAreShortEnglishLines() {
        #expect(parseError("[1,\n  }")?.description == "unexpected character '}' at line 2, column 3")
        #expect(parseError("[\n1,\n2,\n")?.description == "unexpected end of input at line 4, column 1")
        #expect(parseError("[\u{0}]")?.description == "unexpected character 0x00 at line 1, column 2")
        #expect(parseError("é")?.description == "unexpected character 0xc3 at line 1, column 1")
        #expect(parseError("01")?.description == "invalid number at line 1, column 2")
        #expect(parseError("\"\\q\"")?.description == "invalid escape sequence at line 1, column 2")
        #expect(parseError("\"\u{1}\"")?.description == "unescaped control character in string at line 1, column 2")
        #expect(parseError("1 1")?.description == "unexpected content after the JSON value at line 1, column 3")
        #expect(parseError(" ")?.description == "empty input at line 1, column 2")
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parseError(deep)?.description == "nesting deeper than 64 levels at line 1, column 65")
    }
}

@Suite struct DepthTests {
    @Test func sixtyFourLevelsParse() throws {
        let arrays = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try JSONParser.parse(arrays).arrayValue != nil)
        let objects = String(repeating: "{\"k\":", count: 63) + "{}" + String(repeating: "}", count: 63)
        #expect(try JSONParser.parse(objects).objectValue != nil)
    }

    @Test func sixtyFiveLevelsFailWithTooDeep() {
        let arrays = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parseError(arrays) == JSONParseError(kind: .tooDeep(limit: 64), offset: 64, line: 1, column: 65))
        let mixed = String(repeating: "{\"k\":[", count: 33) + "1" + String(repeating: "]}", count: 33)
        #expect(parseError(mixed)?.kind == .tooDeep(limit: 64))
    }

    @Test func customDepthLimitIsHonoured() throws {
        #expect(
            parseError("[[1]]", maxDepth: 1) == JSONParseError(kind: .tooDeep(limit: 1), offset: 1, line: 1, column: 2))
        #expect(try JSONParser.parse("[[1]]", maxDepth: 2) == .array([.array([.number(1)])]))
        #expect(parseError("[]", maxDepth: 0)?.kind == .tooDeep(limit: 0))
        #expect(try JSONParser.parse("\"scalars need no depth\"", maxDepth: 0).stringValue != nil)
    }

    @Test func oneMebibyteOfOpeningBracketsFailsFast() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20)
        var error: JSONParseError?
        let elapsed = ContinuousClock().measure { error = parseError(bytes) }
        #expect(error == JSONParseError(kind: .tooDeep(limit: 64), offset: 64, line: 1, column: 65))
        #expect(elapsed < .seconds(1))
    }

    @Test func hugeDepthLimitDoesNotRecurse() {
        // The parser keeps open containers on a heap stack, so even an absurd limit cannot overflow the call stack.
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 200_000)
        #expect(parseError(bytes, maxDepth: .max)?.kind == .unexpectedEnd)
    }
}

@Suite struct WriterTests {
    @Test func compactOutputHasNoSpaces() throws {
        let text = #" { "a" : [ 1 , 2.5 , "x y" ] , "b" : { } , "c" : [ ] , "d" : null , "e" : true } "#
        #expect(try JSONParser.parse(text).serialized() == #"{"a":[1,2.5,"x y"],"b":{},"c":[],"d":null,"e":true}"#)
    }

    @Test func prettyOutputMatchesExactly() {
        let value = object([
            ("name", .string("x")),
            ("list", .array([.number(1), .number(2.5), .null])),
            ("empty", .object(JSONObject())),
            ("none", .array([])),
            ("nested", object([("ok", .bool(true)), ("deeper", .array([.array([])]))])),
        ])
        let expected = """
            {
              "name": "x",
              "list": [
                1,
                2.5,
                null
              ],
              "empty": {},
              "none": [],
              "nested": {
                "ok": true,
                "deeper": [
                  []
                ]
              }
            }
            """
        #expect(value.serialized(pretty: true) == expected)
        #expect(JSONValue.array([]).serialized(pretty: true) == "[]")
        #expect(JSONValue.number(3).serialized(pretty: true) == "3")
    }

    @Test func stringsAreEscapedMinimally() {
        let value = JSONValue.string("\"\\/\u{08}\u{0C}\n\r\t\u{0}\u{01}\u{1F}\u{7F}\u{2028}\u{2029}é😀\u{2027}")
        #expect(value.serialized() == #""\"\\/\b\f\n\r\t\u0000\u0001\u001f\u007f\u2028\u2029é😀‧""#)
    }

    @Test func keysAreEscapedLikeStrings() {
        #expect(object([("a\"b\n", .null)]).serialized() == #"{"a\"b\n":null}"#)
    }

    @Test(arguments: [
        (7.0, "7"), (-3, "-3"), (0, "0"), (-0.0, "0"), (0.5, "0.5"), (-2.25, "-2.25"), (0.1, "0.1"),
        (1.0 / 3.0, "0.3333333333333333"), (9_007_199_254_740_991, "9007199254740991"),
        (-9_007_199_254_740_991, "-9007199254740991"), (9_007_199_254_740_992, "9007199254740992.0"), (1e16, "1e+16"),
        (1e20, "1e+20"), (1e-7, "1e-07"), (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (.leastNonzeroMagnitude, "5e-324"), (.infinity, "null"), (-.infinity, "null"), (.nan, "null"),
    ])
    func numbersUseIntegersOrShortestRoundTrip(number: Double, expected: String) throws {
        #expect(JSONValue.number(number).serialized() == expected)
        if number.isFinite {
            #expect(try JSONParser.parse(expected) == .number(number))
        }
    }

    @Test func objectMembersAreWrittenInMembersOrder() {
        #expect(
            object([("z", .number(1)), ("a", .number(2)), ("m", .number(3))]).serialized() == #"{"z":1,"a":2,"m":3}"#)
    }
}

@Suite struct RoundTripTests {
    @Test(arguments: [
        "null", "true", "[]", "{}", #"[1,-2,3.5,"a",null,false]"#, #"{"a":{"b":{"c":[[],{}]}}}"#,
        #""\u0000\u001f\"\\é😀""#, #"{"":"","dup":1,"dup":2}"#, "[1e+100,-1.5e-100,0.1]",
    ])
    func canonicalTextRoundTripsExactly(text: String) throws {
        #expect(try JSONParser.parse(text).serialized() == text)
    }

    @Test func prettyOutputParsesBackToTheSameValue() throws {
        let value = try JSONParser.parse(#"{"a":[1,{"b":null,"c":[]}],"d":"e\nf"}"#)
        #expect(try JSONParser.parse(value.serialized(pretty: true)) == value)
    }

    @Test func randomValuesRoundTrip() throws {
        var random = SplitMix64(seed: 0x5EED_1234)
        for _ in 0..<500 {
            let value = random.value(depth: 0)
            #expect(try JSONParser.parse(value.serialized()) == value)
            #expect(try JSONParser.parse(value.serialized(pretty: true)) == value)
        }
    }

    @Test func oneMebibyteDocumentParsesQuickly() throws {
        var parts: [String] = []
        var size = 0
        var row = 0
        while size < 1 << 20 {
            let part =
                #"{"id":\#(row),"name":"item \#(row) \u00e9","score":\#(Double(row) / 7),"tags":["a","b"],"ok":true}"#
            parts.append(part)
            size += part.utf8.count + 1
            row += 1
        }
        let bytes = Array(("[" + parts.joined(separator: ",") + "]").utf8)
        var result: JSONValue?
        let elapsed = try ContinuousClock().measure { result = try JSONParser.parse(bytes) }
        #expect(result?.arrayValue?.count == row)
        #expect(result?.arrayValue?.last?.objectValue?["name"] == .string("item \(row - 1) é"))
        #if DEBUG
        #expect(elapsed < .seconds(5))
        #else
        #expect(elapsed < .milliseconds(50))
        #endif
    }
}

@Suite struct ConvenienceTests {
    @Test func accessorsReturnOnlyTheMatchingCase() {
        let values: [JSONValue] = [.null, .bool(true), .number(1), .string("s"), .array([]), .object(JSONObject())]
        #expect(values.map(\.typeName) == ["null", "boolean", "number", "string", "array", "object"])
        #expect(values.map(\.isNull) == [true, false, false, false, false, false])
        #expect(values.compactMap(\.boolValue) == [true])
        #expect(values.compactMap(\.doubleValue) == [1])
        #expect(values.compactMap(\.stringValue) == ["s"])
        #expect(values.compactMap(\.arrayValue) == [[]])
        #expect(values.compactMap(\.objectValue) == [JSONObject()])
    }
}

/// A tiny seeded generator (SplitMix64) so the property test is reproducible.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func value(depth: Int) -> JSONValue {
        switch below(depth >= 4 ? 4 : 6) {
        case 0: return .null
        case 1: return .bool(below(2) == 0)
        case 2: return .number(number())
        case 3: return .string(string())
        case 4: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
        default:
            // Keys come from a small alphabet so duplicates happen.
            return .object(
                JSONObject((0..<below(5)).map { _ in (key: string(maxLength: 2), value: value(depth: depth + 1)) }))
        }
    }

    mutating func number() -> Double {
        switch below(5) {
        case 0: return Double(below(2001) - 1000)
        case 1: return Double(Int64(bitPattern: next()) >> below(64))
        case 2: return Double(below(1_000_000)) / Double(below(1000) + 1)
        case 3:
            let bits = Double(bitPattern: next())
            return bits.isFinite ? bits : 0
        default: return [0.1, -0.0, 1e300, -1e-300, 9_007_199_254_740_992, .leastNonzeroMagnitude][below(6)]
        }
    }

    mutating func string(maxLength: Int = 12) -> String {
        let specials: [Unicode.Scalar] = [
            "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}", "é",
        ]
        var result = String.UnicodeScalarView()
        for _ in 0..<below(maxLength + 1) {
            switch below(4) {
            case 0: result.append(specials[below(specials.count)])
            case 1: result.append(Unicode.Scalar(UInt8(0x61 + below(maxLength <= 2 ? 2 : 26))))
            case 2: result.append(Unicode.Scalar(UInt32(0x10000 + below(0x100000))) ?? "x")
            default: result.append(Unicode.Scalar(UInt32(below(0xD800))) ?? "x")
            }
        }
        return String(result)
    }
}
