# The closing lines of scripts/test: one line per part (Rust workspace, MPI, Python) and one
# total. Sourced by scripts/test and by .ci/probes, which feeds it made-up logs.
#
# Each part leaves three files in a folder: NAME.title (what to call it), NAME.log (its
# output) and NAME.status (its exit status). A part that exited non-zero counts at least one
# failure even when none of its tests failed (a build that did not compile runs no test, and
# cargo then prints no "test result" line): the total never reads "0 failed" when the run
# failed.

# "passed failed skipped printed_skip builds_failed" of one log: cargo's "test result:" lines,
# pytest's closing line ("3 failed, 109 passed, 15 skipped, 1 error in 6.5s"; errors are
# failures), "SKIP " lines (a test that passed without its GPU, NVRTC or MPI prints one; the
# MPI part prints one when it cannot run), and cargo's "error: could not compile" lines (one
# per target that did not build).
count_log() {
  awk '/^test result:/ { p += $4; f += $6 }
       /^SKIP / { s += 1 }
       /^error: could not compile/ { c += 1 }
       /^=* *[0-9]+ [a-z]+(, [0-9]+ [a-z]+)* in [0-9.]+s/ {
         for (i = 1; i < NF; i++) {
           w = $(i + 1); n = $i; gsub(/[^0-9]/, "", n)
           if (w ~ /^passed/) p += n
           if (w ~ /^failed/) f += n
           if (w ~ /^errors?/) f += n
           if (w ~ /^skipped/) k += n } }
       END { print p + 0, f + 0, k + 0, s + 0, c + 0 }' "$1"
}

# Prints the closing lines for the parts in folder $1 (in the order of their file names);
# status 1 when any part failed.
summarize() {
  local dir=$1 st name title status p f k s c total_p=0 total_f=0 why failed=()
  for st in "$dir"/*.status; do
    [ -e "$st" ] || continue
    name=${st%.status}
    title=$(cat "$name.title")
    status=$(cat "$st")
    read -r p f k s c < <(count_log "$name.log")
    why=
    if [ "$c" -gt 0 ]; then
      why="$c build(s) did not compile (\"error: could not compile\" above)"
    elif [ "$status" != 0 ] && [ "$f" = 0 ]; then
      # Failed before or after its tests without a failing test: count it as one failure.
      why="exited with status $status without a failing test (see its output above)"
      c=1
    elif [ "$status" != 0 ]; then
      why="exited with status $status"
    fi
    echo "$title: $p passed$([ "$s" = 0 ] || echo " ($s printed SKIP)"), $((f + c)) failed$(
      [ "$k" = 0 ] || echo ", $k skipped")${why:+ — $why}"
    total_p=$((total_p + p))
    total_f=$((total_f + f + c))
    [ -n "$why" ] && failed+=("$title")
  done
  if [ "${#failed[@]}" -gt 0 ]; then
    local IFS=';'
    echo "FAILED: ${failed[*]}" | sed 's/;/; /g'
    unset IFS
  fi
  echo "tests: $total_p passed, $total_f failed"
  [ "$total_f" = 0 ]
}
