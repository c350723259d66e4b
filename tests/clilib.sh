# Helpers of the gridemst command-line tests (tests/cli.sh,
# tests/cli_input.sh), sourced after tests/testlib.sh.
# shellcheck shell=sh

# run ARGS...: runs gridemst; stdout in $tmp/out, stderr in $tmp/err, status in $status.
run() {
    "$prog" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# expect_ok NAME: the last run succeeded and printed nothing on stderr
# (standard error is a file here, so no progress line either).
expect_ok() {
    if [ "$status" -ne 0 ]; then
        fail "$1: exit status $status, expected 0: $(head -c 300 "$tmp/err")"
    elif [ -s "$tmp/err" ]; then
        fail "$1: unexpected standard error: $(head -c 300 "$tmp/err")"
    fi
}

# expect_ok_header NAME: the last run succeeded, and standard error holds
# only the note that the input's first line was read as a header.
expect_ok_header() {
    if [ "$status" -ne 0 ]; then
        fail "$1: exit status $status, expected 0: $(head -c 300 "$tmp/err")"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "^gridemst: note: .*:1: read as a header line" "$tmp/err"; then
        fail "$1: expected the header note alone on standard error, got: $(head -c 300 "$tmp/err")"
    fi
}

# lines FILE: the number of lines in FILE.
lines() {
    wc -l <"$1" | tr -d ' '
}

# expect_error NAME PATTERN ARGS...: exit status 2, nothing on stdout, and
# exactly one line "gridemst: ..." on stderr matching PATTERN (grep -E).
expect_error() {
    name=$1 pattern=$2
    shift 2
    run "$@"
    if [ "$status" -ne 2 ]; then
        fail "$name: exit status $status, expected 2"
    elif [ "$(lines "$tmp/err")" -ne 1 ] || ! grep -Eq "^gridemst: .*($pattern)" "$tmp/err"; then
        fail "$name: expected one line matching '$pattern' on stderr, got: $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        fail "$name: unexpected standard output"
    fi
}

# expect_usage NAME PATTERN ARGS...: exit status 2, "gridemst: ..." matching
# PATTERN and the hint "Try 'gridemst --help'." on stderr, nothing more.
expect_usage() {
    name=$1 pattern=$2
    shift 2
    run "$@"
    if [ "$status" -ne 2 ]; then
        fail "$name: exit status $status, expected 2"
    elif [ "$(lines "$tmp/err")" -ne 2 ] || ! head -n 1 "$tmp/err" | grep -Eq "^gridemst: .*($pattern)" ||
        [ "$(sed -n 2p "$tmp/err")" != "Try 'gridemst --help'." ]; then
        fail "$name: expected a usage error matching '$pattern', got: $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        fail "$name: unexpected standard output"
    fi
}

# json_value KEY FILE: the value of the first member KEY (a number or a
# string, given without its quotes) of the one-line JSON object in FILE:
# top-level members come before nested ones of the same name.
json_value() {
    awk -v key="\"$1\": " '{
        n = split($0, member, /, "|[{]"/)
        for (i = 1; i <= n; i++) {
            m = "\"" member[i]
            if (index(m, key) == 1) {
                v = substr(m, length(key) + 1)
                sub(/[}]+$/, "", v)
                gsub(/^"|"$/, "", v)
                print v
                exit
            }
        }
    }' "$2"
}

# expect_json NAME FILE: FILE is valid JSON (checked when python3 exists).
expect_json() {
    if command -v python3 >/dev/null 2>&1 &&
        ! python3 -c 'import json, sys; json.load(sys.stdin)' <"$2" >/dev/null 2>&1; then
        fail "$1: invalid JSON: $(head -c 300 "$2")"
    fi
}

# expect_tree NAME FILE N: FILE holds N - 1 lines u,v,w of point ids u < v
# below N, sorted by (w, u, v) (0 lines for N < 2).
expect_tree() {
    want=$(($3 > 1 ? $3 - 1 : 0))
    if [ "$(lines "$2")" -ne "$want" ]; then
        fail "$1: $(lines "$2") edges, expected $want"
        return
    fi
    awk -F, -v n="$3" '
        NF != 3 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || !($1 + 0 < $2 + 0) || $2 + 0 >= n {
            print "line " NR ": not u,v,w with u < v < n: " $0; exit 1
        }
        NR > 1 && !($3 + 0 > w || ($3 + 0 == w && ($1 + 0 > u || ($1 + 0 == u && $2 + 0 > v)))) {
            print "line " NR ": not in (w, u, v) order: " $0; exit 1
        }
        { u = $1 + 0; v = $2 + 0; w = $3 + 0 }' "$2" >"$tmp/awk" || fail "$1: $(cat "$tmp/awk")"
}
