#!/usr/bin/env bash
# MultiDeviceTraining with and without capture and replay (--no-capture), every engine, interleaved:
# per-epoch times and the engine's cost per batch (the example's --profile line).
#
#   benchmarks/multidevice-training.sh [ROUNDS]     default 3 rounds; ~3 min on a quiet 2-core machine
#
# Environment (optional): VARIANTS (default "small default"; also "small-steady": the small-op variant
# for 600 epochs, whose runs of 60 are mostly the JIT's warm-up; "small-dist": the small-op variant
# with --kvstore dist_sync --workers 2, two worker JVMs), ENGINES (default "naive pooled perdevice"),
# PROFILER (default "off on": without and with the profiler), OUT (the output file). For example, the
# store's ops captured too, local and dist_sync, naive and perdevice, without the profiler:
#   VARIANTS="small small-dist" ENGINES="naive perdevice" PROFILER=off \
#     OUT=benchmarks/results/multidevice-training-kvstore.txt benchmarks/multidevice-training.sh 3
#
# Each round runs, for the small-op variant (--hidden 8 --batch 8: 75 batches of ~39 ops per epoch,
# 60 epochs) and the default one (--hidden 64 --batch 60: 10 batches, 30 epochs), for naive, pooled and
# perdevice: with capture, then --no-capture, first without the profiler (--trace off: the epoch time,
# the wall time per batch and the pushing thread's time in pushes and replays), then with it (the
# ops' own run time per batch and the queue wait per op). Ratios are taken within a round (adjacent
# runs), and the table gives each figure's median over the rounds with its min–max.
# Build first: ./mvnw -q -o package -DskipTests -pl examples -am   (run-example reads examples/target).
# The JDK is the one in JAVA_HOME (else java on the PATH). Output: the table on stdout and, with every
# run's raw lines, in benchmarks/results/multidevice-training-jdkN.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
case "$rounds" in ''|*[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jdk=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
variants=${VARIANTS:-small default}
engines=${ENGINES:-naive pooled perdevice}
profiler=${PROFILER:-off on}
out=${OUT:-benchmarks/results/multidevice-training-jdk$jdk.txt}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
trace=$(mktemp -d)
trap 'rm -rf "$raw" "$trace"' EXIT

run() { # ROUND VARIANT ENGINE CAPTURE PROFILER ARGS...
  local r=$1 v=$2 e=$3 c=$4 p=$5; shift 5
  local flags=(--engine "$e" --profile "$@")
  [ "$c" = off ] && flags+=(--no-capture)
  if [ "$p" = off ]; then flags+=(--trace off); else flags+=(--trace "$trace/t.json"); fi
  local o
  o=$(./run-example MultiDeviceTraining "${flags[@]}" 2>&1) || { echo "$o" >&2; exit 1; }
  local epoch wall push ran wait
  epoch=$(sed -n 's/^time per epoch: \([0-9.]*\) ms.*/\1/p' <<<"$o")
  wall=$(sed -n 's/^engine per batch.*: wall \([0-9.]*\) us;.*/\1/p' <<<"$o")
  push=$(sed -n 's/^engine per batch.*pushing thread in pushes and replays \([0-9.]*\) us.*/\1/p' <<<"$o")
  if [ "$p" = off ]; then
    echo "$r $v $e $c epoch_ms $epoch"; echo "$r $v $e $c wall_us_per_batch $wall"; echo "$r $v $e $c push_us_per_batch $push"
  else
    ran=$(sed -n 's/^engine per batch.*their run \([0-9.]*\) us.*/\1/p' <<<"$o")
    wait=$(sed -n 's/^engine per batch.*queue wait \([0-9.]*\) us\/op.*/\1/p' <<<"$o")
    echo "$r $v $e $c prof_epoch_ms $epoch"; echo "$r $v $e $c prof_run_us_per_batch $ran"
    echo "$r $v $e $c prof_queue_wait_us_per_op $wait"
  fi
}

{
  echo "# MultiDeviceTraining capture benchmark: $(date -u +%FT%TZ), $("$java" -version 2>&1 | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} > "$raw"
for r in $(seq 1 "$rounds"); do
  for v in $variants; do
    case "$v" in
      small) args=(--hidden 8 --batch 8 --epochs 60) ;;
      small-steady) args=(--hidden 8 --batch 8 --epochs 600) ;; # ~5 s a run: past the JIT's warm-up
      small-dist) args=(--hidden 8 --batch 8 --epochs 60 --kvstore dist_sync --workers 2) ;;
      default) args=(--epochs 30) ;;
      *) echo "unknown variant '$v' (small, small-steady, small-dist, default)" >&2; exit 2 ;;
    esac
    for e in $engines; do
      for p in $profiler; do
        for c in on off; do
          run "$r" "$v" "$e" "$c" "$p" "${args[@]}" >> "$raw"
        done
      done
    done
  done
  echo "round $r of $rounds done" >&2
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$raw"

summary=$(awk -v variants="$variants" -v engines="$engines" '
  function med(key,   n, i, j, t, a) { n = cnt[key]; for (i = 1; i <= n; i++) a[i] = val[key, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    lo[key] = a[1]; hi[key] = a[n]; return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function add(key, x) { val[key, ++cnt[key]] = x; keys[key] = 1 }
  function ratio(key,   m) { if (!cnt[key]) return "—"; m = med(key); return sprintf("%.2f (%.2f–%.2f)", m, lo[key], hi[key]) }
  /^#/ { next }
  { v[$1, $2, $3, $4, $5] = $6; add($2 " " $3 " capture=" $4 " " $5, $6); rs[$1] = 1; vs[$2] = 1 }
  END {
    nv = split(variants, V, " "); ne = split(engines, E, " ")
    split("epoch_ms wall_us_per_batch push_us_per_batch prof_epoch_ms prof_run_us_per_batch prof_queue_wait_us_per_op", M, " ")
    printf "| variant | engine | figure | with capture | --no-capture | capture ÷ no-capture |\n|---|---|---|---|---|---|\n"
    for (vi = 1; vi <= nv; vi++) for (ei = 1; ei <= ne; ei++) for (mi = 1; mi <= 6; mi++) {
      k1 = V[vi] " " E[ei] " capture=on " M[mi]; k0 = V[vi] " " E[ei] " capture=off " M[mi]
      if (!(k1 in keys)) continue
      for (r in rs) if (v[r, V[vi], E[ei], "off", M[mi]] > 0) add("ratio " k1, v[r, V[vi], E[ei], "on", M[mi]] / v[r, V[vi], E[ei], "off", M[mi]])
      m1 = med(k1); m0 = med(k0); mr = med("ratio " k1)
      printf "| %s | %s | %s | %.1f (%.1f–%.1f) | %.1f (%.1f–%.1f) | %.2f (%.2f–%.2f) |\n", V[vi], E[ei], M[mi], m1, lo[k1], hi[k1], m0, lo[k0], hi[k0], mr, lo["ratio " k1], hi["ratio " k1]
    }
    printf "\n| variant | capture | perdevice ÷ naive, epoch time | pooled ÷ naive, epoch time |\n|---|---|---|---|\n"
    for (vi = 1; vi <= nv; vi++) for (ci = 1; ci <= 2; ci++) {
      c = ci == 1 ? "on" : "off"
      for (r in rs) { n = v[r, V[vi], "naive", c, "epoch_ms"]; if (n > 0) {
        if (v[r, V[vi], "perdevice", c, "epoch_ms"] > 0) add("pd " V[vi] c, v[r, V[vi], "perdevice", c, "epoch_ms"] / n)
        if (v[r, V[vi], "pooled", c, "epoch_ms"] > 0) add("po " V[vi] c, v[r, V[vi], "pooled", c, "epoch_ms"] / n) } }
      printf "| %s | %s | %s | %s |\n", V[vi], c, ratio("pd " V[vi] c), ratio("po " V[vi] c)
    }
  }' "$raw")
{ cat "$raw"; echo; echo "$summary"; } > "$out"
head -1 "$raw"
echo "$summary"
echo "== wrote $out"
