#!/usr/bin/env bash
# Issue 37's speed goals in one run, each beside its same-run baseline, then the goals table:
#
#   benchmarks/core-goals.sh [OUT_DIR]     ~30 min on a quiet 2-core machine; OUT_DIR default benchmarks/push-path-results
#
# 1. The push path: LinearChain, Independent, RandomDag (mxnet, wide), ops pushed one by one on naive,
#    pooled and perdevice, and the CompletableFuture graph of the same ops (cf); 2 forks x 5 x 1 s.
#    -> OUT_DIR/core-push-jdkN.{json,txt}
# 2. The replays: Replay (chain, independent, mxnet, wide; a 1,024-op step replayed, and the whole list as
#    one graph), ENGINE+replay beside ENGINE on every engine, serial and cf; 2 forks x 3 x 1 s.
#    -> OUT_DIR/core-replay-jdkN.{json,txt}
# 3. MultiDeviceTraining --hidden 8 --batch 8 (benchmarks/multidevice-training.sh, small variant: 60 epochs,
#    and small-steady: 600), naive and perdevice, with capture and --no-capture, 3 rounds interleaved.
#    -> OUT_DIR/core-mdt-jdkN.txt
# Then prints the table (org.depengine.benchmarks.report.CoreGoals) and writes it to OUT_DIR/core-goals-jdkN.md.
# Build first: ./mvnw -q package -DskipTests -pl benchmarks,examples -am. STEPS (default "push replay mdt")
# runs only some steps; the table judges what is there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out="${1:-$here/push-path-results}"
mkdir -p "$out"
if [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; else java="$(command -v java)"; fi
jdk=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
jar="$here/target/benchmarks.jar"
steps=${STEPS:-push replay mdt}
jvm="-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
echo "== core goals, JDK $jdk, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$root" rev-parse --short=12 HEAD)"
for s in $steps; do
  case "$s" in
    push)
      "$java" -jar "$jar" '\.(LinearChain|Independent|RandomDag)\.(engine|baseline)$' -p baseline=cf -p profiling=off \
        -f 2 -wi 3 -i 5 -w 1 -r 1 -jvmArgsPrepend "$jvm" -rf json -rff "$out/core-push-jdk$jdk.json" | tee "$out/core-push-jdk$jdk.txt" ;;
    replay)
      "$java" -jar "$jar" '\.Replay\.(engine|baseline)$' -p baseline=cf \
        -f 2 -wi 2 -i 3 -w 1 -r 1 -jvmArgsPrepend "$jvm" -rf json -rff "$out/core-replay-jdk$jdk.json" | tee "$out/core-replay-jdk$jdk.txt" ;;
    mdt)
      VARIANTS="small small-steady" ENGINES="naive perdevice" PROFILER=off OUT="$out/core-mdt-jdk$jdk.txt" "$here/multidevice-training.sh" 3 ;;
    *) echo "unknown step '$s' (push, replay, mdt)" >&2; exit 2 ;;
  esac
done
arg() { [ -f "$1" ] && echo "$1" || echo -; }
"$java" -cp "$jar" org.depengine.benchmarks.report.CoreGoals "$(arg "$out/core-push-jdk$jdk.json")" \
  "$(arg "$out/core-replay-jdk$jdk.json")" "$(arg "$out/core-mdt-jdk$jdk.txt")" | tee "$out/core-goals-jdk$jdk.md"
