#!/usr/bin/env bash
# Runs a command and checks its exit status and that stderr+stdout contain a text.
#   expect.sh EXIT_STATUS TEXT -- command args...
# EXIT_STATUS "nonzero" accepts any failure status; a crash (signal, status >= 128) always fails.
set -u
want="$1"; text="$2"; shift 3
out=$("$@" 2>&1); got=$?
fail() { printf 'FAIL: %s\ncommand: %s\nstatus: %s\noutput:\n%s\n' "$1" "$*" "$got" "$out"; exit 1; }
if [ "$got" -ge 128 ]; then fail "crashed (signal $((got - 128)))"; fi
if [ "$want" = "nonzero" ]; then
  [ "$got" -ne 0 ] || fail "expected a failure status"
else
  [ "$got" -eq "$want" ] || fail "expected status $want"
fi
case "$out" in *"$text"*) ;; *) fail "output lacks: $text";; esac
echo "ok: status $got, found: $text"
