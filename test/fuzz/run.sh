#!/usr/bin/env bash
# Builds every libFuzzer target in test/fuzz (*_fuzz.cc) with clang and
# ASan/UBSan, replays its committed corpus and crash reproducers, then fuzzes
# it for FUZZ_SECONDS (default 60). New corpus entries go to a scratch
# directory; pass --merge to fold them into test/fuzz/corpus/<target>/.
#
#   npm run test:fuzz                      # every target, 60 s each
#   FUZZ_SECONDS=5 bash test/fuzz/run.sh builder_fuzz
#
# Ends with "N passed, N failed" (one per target).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=${FUZZ_SECONDS:-60}
merge=0
targets=()
for a in "$@"; do
  case $a in
    --merge) merge=1 ;;
    *) targets+=("$a") ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for f in test/fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
CXX=${FUZZ_CXX:-clang++}
if ! command -v "$CXX" >/dev/null; then
  echo "test:fuzz needs clang++ (apt-get install clang libclang-rt-14-dev)"
  echo "0 passed, 1 failed"
  exit 1
fi
out=$root/build-fuzz
mkdir -p "$out"
flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
  -fno-sanitize-recover=undefined -I"$root/src" -I"$root/test/fuzz")
passed=0 failed=0
for t in "${targets[@]}"; do
  src=test/fuzz/$t.cc
  # A target names the sources it needs on a line "// fuzz-sources: a.cc b.cc".
  mapfile -t deps < <(sed -n 's|^// fuzz-sources: ||p' "$src" | tr ' ' '\n' | sed '/^$/d')
  echo "==> $t: build"
  if ! "$CXX" "${flags[@]}" "$src" "${deps[@]}" -o "$out/$t"; then
    echo "FAIL $t (build)"; failed=$((failed + 1)); continue
  fi
  corpus=test/fuzz/corpus/$t
  crashes=test/fuzz/crashes/$t
  mkdir -p "$corpus"
  # Every committed reproducer must run clean (regression tests).
  ok=1
  if [ -d "$crashes" ] && [ -n "$(ls -A "$crashes")" ]; then
    echo "==> $t: replay $(ls "$crashes" | wc -l) reproducers"
    "$out/$t" -runs=0 "$crashes"/* >"$out/$t.replay.log" 2>&1 || { ok=0; tail -30 "$out/$t.replay.log"; }
  fi
  scratch=$(mktemp -d)
  echo "==> $t: fuzz ${seconds}s (corpus $(ls "$corpus" | wc -l) files)"
  if [ $ok -eq 1 ] && ! "$out/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$out/$t-" "$scratch" "$corpus" >"$out/$t.log" 2>&1; then
    ok=0
    tail -40 "$out/$t.log"
    echo "reproducer: $(ls "$out/$t"-crash-* "$out/$t"-leak-* "$out/$t"-timeout-* "$out/$t"-oom-* 2>/dev/null | head -1)"
  fi
  if [ $ok -eq 1 ]; then
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/$t.log" | tr '\n' ' '; echo
    if [ $merge -eq 1 ]; then "$out/$t" -merge=1 -use_counters=0 "$corpus" "$scratch" >/dev/null 2>&1; fi
    echo "ok   $t"; passed=$((passed + 1))
  else
    echo "FAIL $t"; failed=$((failed + 1))
  fi
  rm -rf "$scratch"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
