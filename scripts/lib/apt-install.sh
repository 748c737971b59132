# Sourced by every script that installs what it needs: one way to install Debian packages.
# apt_install WHO PACKAGE...: installs those of the PACKAGEs not installed yet (as root, or
# through sudo), quietly; on failure prints apt's last lines, names WHO, and returns 1.
apt_install() {
    local who=$1 package log
    shift
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "== $who: installing ${missing[*]}"
    local sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    log=$(mktemp "${TMPDIR:-/tmp}/apt-install.XXXXXX")
    if ! { "${sudo_cmd[@]}" apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
        >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        rm -f "$log"
        echo "$who: apt-get install ${missing[*]} failed" >&2
        return 1
    fi
    rm -f "$log"
}
