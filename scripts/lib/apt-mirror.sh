# Sourced by the checks that debootstrap Debian 12 (check-fresh-debian, check-booted-tablet).
# The mirror is the one this machine's own apt uses for bookworm: the first deb822 stanza in
# /etc/apt/sources.list.d/*.sources whose Suites name bookworm (its first URI), else the first
# one-line `deb` entry for bookworm in /etc/apt/sources.list or sources.list.d/*.list.
apt_mirror() {
    local file
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -r "$file" ] || continue
        awk '
            function flush() { if (deb && bookworm && uri != "") { print uri; found = 1; exit } deb = bookworm = 0; uri = "" }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]*#/ { next }
            tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") bookworm = 1 }
            tolower($1) == "enabled:" && tolower($2) == "no" { deb = 0 }
            END { if (!found) flush() }
        ' "$file" | head -n 1
    done | head -n 1 | grep . && return
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$file" ] || continue
        # deb [options] uri suite components...
        sed -E 's/\[[^]]*\]//' "$file" | awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }'
    done | head -n 1 | grep .
}
