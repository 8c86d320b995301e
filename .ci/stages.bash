# Stages of .ci/run: each one timed, some run in the background beside the others, and a table of
# them all printed when the run ends, whether it passed or failed. Sourced by .ci/run.
#
#   stage NAME WHAT            ends the running foreground stage and starts NAME (WHAT says what
#                              it checks, in its header line)
#   background NAME WHAT CMD…  runs CMD as the stage NAME beside the others (its own process
#                              group; its output kept in target/ci/NAME.log, spaces as dashes,
#                              and printed when joined)
#   join NAME                  ends the running foreground stage, waits for a background stage,
#                              prints its output, fails if it failed
#
# The table (stage, where it ran, start and end in seconds from the start of the run, seconds,
# outcome) is printed at exit; a background stage still running then is stopped and marked so.

CI_LOGS=target/ci
mkdir -p "$CI_LOGS"
rm -f "$CI_LOGS"/*.log "$CI_LOGS"/*.status

declare -a ci_rows=()          # "name|lane|start|end|outcome", in the order stages ended
declare -A ci_background=()    # name -> process group of a background stage not joined yet
declare -A ci_started_at=()    # name -> when a background stage started
ci_current=""                  # the foreground stage running now
ci_current_start=0

# Prints a stage's header line, with which every stage's output starts.
ci_say() { printf '\n== %s (at %ss)\n' "$*" "$SECONDS"; }

# Ends the running foreground stage with the outcome given.
ci_end_current() {
  if [ -n "$ci_current" ]; then
    ci_rows+=("$ci_current|foreground|$ci_current_start|$SECONDS|$1")
    ci_current=""
  fi
}

stage() {
  ci_end_current ok
  ci_current="$1"
  ci_current_start=$SECONDS
  ci_say "$1: $2"
}

background() {
  local name="$1"
  ci_say "$name: $2; in the background (its output follows when it is joined)"
  shift 2
  ci_started_at[$name]=$SECONDS
  # setsid: the stage and everything it starts form one process group, stopped as one at exit.
  # The status file says how it ended and how many seconds it took.
  setsid --wait bash -c '"${@:3}" > "$1" 2>&1; echo "$? $SECONDS" > "$2"' \
    ci-background "$CI_LOGS/${name// /-}.log" "$CI_LOGS/${name// /-}.status" "$@" &
  ci_background[$name]=$!
}

join() {
  local name="$1" outcome took start="${ci_started_at[$1]}" end
  ci_end_current ok
  wait "${ci_background[$name]}" || true
  unset "ci_background[$name]"
  read -r outcome took < "$CI_LOGS/${name// /-}.status" || { outcome="no status" took=$((SECONDS - start)); }
  end=$((start + took))
  printf '\n== %s: joined at %ss (background, %ss to %ss, exit %s); its output:\n' \
    "$name" "$SECONDS" "$start" "$end" "$outcome"
  cat "$CI_LOGS/${name// /-}.log"
  if [ "$outcome" = 0 ]; then
    ci_rows+=("$name|background|$start|$end|ok")
  else
    ci_rows+=("$name|background|$start|$end|failed ($outcome)")
    echo "== $name failed (exit $outcome)"
    return 1
  fi
}

# The table of every stage, in the order they started.
ci_table() {
  local name lane start end outcome
  printf '\n== stages (seconds from the start of the run)\n'
  printf '%-18s %-10s %6s %6s %7s  %s\n' stage lane start end seconds outcome
  printf '%s\n' "${ci_rows[@]}" | sort -s -t '|' -k 3,3n |
    while IFS='|' read -r name lane start end outcome; do
      printf '%-18s %-10s %6s %6s %7s  %s\n' "$name" "$lane" "$start" "$end" "$((end - start))" "$outcome"
    done
  printf '%-18s %-10s %6s %6s %7s\n' "the whole run" "" 0 "$SECONDS" "$SECONDS"
}

# At exit: the running stage ends (failed unless the run passed), background stages still running
# are stopped, and the table is printed.
ci_finish() {
  local status=$? name
  if [ "$status" = 0 ]; then ci_end_current ok; else ci_end_current "failed ($status)"; fi
  for name in "${!ci_background[@]}"; do
    kill -- "-${ci_background[$name]}" 2>/dev/null || true
    ci_rows+=("$name|background|${ci_started_at[$name]}|$SECONDS|stopped: the run ended first")
  done
  ci_table
  exit "$status"
}
trap ci_finish EXIT
