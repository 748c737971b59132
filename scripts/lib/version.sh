# Sourced by the scripts that name the package's version: the one the sources declare.
# daysome_version [ROOT]: prints daysomeVersion from ROOT's (default .) Sources/DaysomeCore/Time/Instant.swift.
daysome_version() {
    sed -nE 's/^public let daysomeVersion = "([^"]+)"$/\1/p' "${1:-.}/Sources/DaysomeCore/Time/Instant.swift"
}
