// Reads a household file's bytes into a validated Household, following rule 9: some faults
// make the whole file unusable, one bad item is skipped and named, a bad optional field is
// ignored and named. Pure: the zone rules come from a lookup the caller passes in.
// Unknown keys are never read, so nothing from them (a PIN, a note) can be echoed.

/// A usable household and what was skipped or ignored on the way.
public struct HouseholdLoad: Sendable, Equatable {
    public let household: Household
    public let problems: [HouseholdProblem]

    public init(household: Household, problems: [HouseholdProblem]) {
        self.household = household
        self.problems = problems
    }
}

/// Parses and validates household files.
public enum HouseholdParser {
    /// Files over 1 MiB are refused whole: the display app never writes one that large.
    public static let sizeLimit = 1 << 20

    /// Parses a household file.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - file: the path, for error lines.
    ///   - zones: the rules of a zone by IANA name, nil when unknown.
    ///   - systemZoneName: the zone used when the file names none.
    /// - Returns: the household and its item-level problems, or why the whole file is unusable.
    public static func parse(
        _ bytes: [UInt8], file: String, zones: (String) -> ZoneRules?, systemZoneName: String
    ) -> Result<HouseholdLoad, HouseholdFileError> {
        guard bytes.count <= Self.sizeLimit else {
            return .failure(
                HouseholdFileError(file: file, reason: .tooLarge(bytes: bytes.count, limit: Self.sizeLimit)))
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            return .failure(HouseholdFileError(file: file, reason: .notJSON(error.description)))
        }
        guard let root = document.objectValue else {
            return .failure(HouseholdFileError(file: file, reason: .notAnObject))
        }
        guard let version = root["version"]?.doubleValue, version == 1 else {
            return .failure(HouseholdFileError(file: file, reason: .badVersion))
        }
        let itemValues: [JSONValue]
        switch root["items"] {
        case nil: return .failure(HouseholdFileError(file: file, reason: .badItems("is missing")))
        case .null?: return .failure(HouseholdFileError(file: file, reason: .badItems("is null")))
        case .array(let values)?: itemValues = values
        case let other?:
            return .failure(HouseholdFileError(file: file, reason: .badItems("is \(article(other)), not an array")))
        }
        let zone: Zone
        switch root["timeZone"] {
        case nil, .null?:
            zone = Zone(name: systemZoneName, rules: zones(systemZoneName) ?? .utc)
        case .string(let name)?:
            // Before any file is read: right/Europe/London loads, and plans an hour early all winter.
            if let (variant, plain) = ZoneVariant.of(name) {
                return .failure(
                    HouseholdFileError(file: file, reason: .zoneVariant(name, variant, plain: plain)))
            }
            guard let rules = zones(name) else {
                return .failure(HouseholdFileError(file: file, reason: .unknownTimeZone(name)))
            }
            zone = Zone(name: name, rules: rules)
        case let other?:
            return .failure(HouseholdFileError(file: file, reason: .unknownTimeZone("(\(other.typeName))")))
        }

        var reader = FieldReader(file: file)
        let clock = reader.clockStyle(root["clock"])
        let settings = reader.settings(root["settings"])
        let dayParts = reader.dayParts(root["dayParts"])
        var items: [Item] = []
        var seen: Set<String> = []
        for (index, value) in itemValues.enumerated() {
            guard let item = reader.item(value, index: index, seen: seen) else { continue }
            seen.insert(item.id)
            items.append(item)
        }
        if !itemValues.isEmpty && items.isEmpty {
            return .failure(
                HouseholdFileError(
                    file: file, reason: .noValidItems(count: itemValues.count), problems: reader.problems))
        }
        let mealChoices = reader.mealChoices(root["mealChoices"])
        let words = reader.words(root["words"])
        let household = Household(
            zone: zone, clock: clock, settings: settings, dayParts: dayParts, items: items, mealChoices: mealChoices,
            words: words)
        return .success(HouseholdLoad(household: household, problems: reader.problems))
    }
}

/// "an object", "a number": for error lines about a value of the wrong type.
func article(_ value: JSONValue) -> String {
    switch value {
    case .array, .object: return "an \(value.typeName)"
    case .null: return "null"
    default: return "a \(value.typeName)"
    }
}
