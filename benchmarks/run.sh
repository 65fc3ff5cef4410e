#!/usr/bin/env bash
# Runs the depengine JMH benchmarks and regenerates benchmarks/RESULTS.md.
#
#   benchmarks/run.sh quick   [JMH options...]   ~6 min on 2 cores: 1 fork, short iterations, a parameter subset
#   benchmarks/run.sh full    [JMH options...]   ~22 min on 2 cores: 2 forks, every parameter
#   benchmarks/run.sh targets [JMH options...]   ~27 min on 2 cores: 2 forks x 5 iterations of what issue #16's
#                                                targets need (pooled and perdevice, their baselines), then
#                                                `profile` (skip it with BENCH_PROFILE=off)
#   benchmarks/run.sh profile [JMH options...]   ~4.5 min on 2 cores: every result a target is judged on
#                                                (RandomDag mxnet/wide with the profiler off and on, LinearChain
#                                                and Independent plain and bulk(16), CpuParallel G=10/100 µs,
#                                                ComputeCopyOverlap cpu (and opencl); pooled and perdevice, cf
#                                                for comparison), 1 fork x 5 x 1 s under JFR
#                                                (benchmarks/profile.jfc) and JMH's gc profiler; stores
#                                                results/profiles/jdkN.{json,txt}, which the report quotes
#   benchmarks/run.sh replay  [JMH options...]   ~7 min on 2 cores: issue #30's replay targets, 2 forks: Replay (four
#                                                shapes, ENGINE+replay beside ENGINE, serial and cf) and Metg
#                                                with and without replay at G = 250, 1000, 4000 ns
#   benchmarks/run.sh smoke   [JMH options...]   ~3 min: every benchmark once, to check they all work
#                                                (results and report under benchmarks/target/smoke, not stored)
#   benchmarks/run.sh report                     only regenerate RESULTS.md from benchmarks/results/
#
# The JDK is the one in JAVA_HOME (else `java` on the PATH): run it once per JDK, e.g.
#   benchmarks/run.sh full
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 benchmarks/run.sh full
# Each run stores benchmarks/results/MODE-jdkN.json (JMH's JSON), MODE-jdkN.properties (machine and
# JDK) and MODE-jdkN.txt (JMH's console output), replacing an earlier run of the same mode and JDK;
# RESULTS.md is then regenerated from every stored run (sections: mode × JDK; a targets section quotes
# the profile of its JDK for every missed target).
# Extra arguments go to JMH, e.g. -jvmArgsAppend -Ddepengine.cpu.workers=2, or -f/-i/-r/-p to override the
# mode's own settings. A first argument that is not an option is a benchmark regex and replaces the mode's
# own selection (targets, profile), e.g. `benchmarks/run.sh profile 'LinearChain\.bulk$'`.
# (run.sh itself uses -jvmArgsPrepend to hand every fork its fixed heap and the busy-spin rate it
# calibrated once.)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
mode="${1:-}"
case "$mode" in
  quick|full|smoke|targets|profile|replay|report) shift ;;
  *) echo "usage: $0 quick|full|smoke|targets|profile|replay|report [JMH options...]" >&2; exit 2 ;;
esac

if [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; else java="$(command -v java)"; fi
# PoCL (and the LLVM inside it) install their own signal handlers when OpenCL is first used, replacing
# the JVM's: the JVM's next implicit null check or safepoint poll then killed the process with SIGSEGV
# and no hs_err file (3 of 14 MachineInfo runs on 2026-11-26). The JVM's signal-chaining
# library keeps its handlers first; the JMH forks inherit it from the environment.
jsig="$(dirname "$(dirname "$(readlink -f "$java")")")/lib/libjsig.so"
if [ -f "$jsig" ]; then export LD_PRELOAD="$jsig${LD_PRELOAD:+:$LD_PRELOAD}"; fi
jar="$here/target/benchmarks.jar"

# Build when the jar is missing or older than any source or pom of the project.
if [ ! -f "$jar" ] || [ -n "$(find "$root" \( -name .git -o -name target \) -prune -o \
      \( -name '*.java' -o -name pom.xml \) -newer "$jar" -print -quit)" ]; then
  echo "== building benchmarks/target/benchmarks.jar"
  (cd "$root" && ./mvnw -B -ntp -q -pl benchmarks -am -DskipTests package)
fi

report() { # RESULTS_DIR OUT.md
  "$java" -cp "$jar" org.depengine.benchmarks.report.ReportMain "$1" "$2"
  echo "== wrote $2"
}

if [ "$mode" = report ]; then
  report "$here/results" "$here/RESULTS.md"
  exit 0
fi

if [ "$mode" = smoke ]; then out="$here/target/smoke"; else out="$here/results"; fi
mkdir -p "$out"
meta="$(mktemp)"
scratch="$(mktemp -d)" # profile: JMH's JSON and the JFR recordings, summarised then dropped
trap 'rm -rf "$meta" "$meta.log" "$scratch"' EXIT
if ! "$java" -cp "$jar" org.depengine.benchmarks.report.MachineInfo "$meta" "$mode" 2>"$meta.log"; then
  cat "$meta.log" >&2
  echo "== could not record the machine (MachineInfo failed, above)" >&2
  exit 1
fi
jdk="$(sed -n 's/^java\.feature=//p' "$meta")"
name="$mode-jdk$jdk"
# The code measured: the commit, "+dirty" if anything but stored results differs from it.
commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [ "$commit" != unknown ] && ! git -C "$root" diff --quiet HEAD -- . ':!benchmarks/results' ':!benchmarks/RESULTS.md'; then
  commit="$commit+dirty"
fi
echo "git.commit=$commit" >>"$meta"
devices=cpu
if grep -q '^opencl\.available=true' "$meta"; then devices=cpu,opencl; fi
# One busy-spin calibration for the whole run, so every fork (every contender) does the same work.
spin="$(sed -n 's/^spin\.iterationsPerMicro=//p' "$meta")"
# Every fork gets the same heap, fixed and touched at start: with the default, growing heap a fork
# paid the kernel's first touch of fresh pages for as long as its heap grew, and forks of one
# benchmark landed up to 3.5x apart, the single-threaded naive engine's included (README, "Heap
# state"). Prepended, so that -jvmArgsAppend -Xmx... still overrides it. BENCH_HEAP sets the size.
fork_jvm_args="-Xms${BENCH_HEAP:-2g} -Xmx${BENCH_HEAP:-2g} -XX:+AlwaysPreTouch"
echo "fork.jvmArgs=$fork_jvm_args" >>"$meta"
host_args=()
if [ "$jdk" -ge 23 ]; then
  # JMH 1.37 uses sun.misc.Unsafe's memory access, which JDK 23+ warns about in every JVM (JEP 471);
  # the forks inherit the host JVM's options.
  host_args+=(--sun-misc-unsafe-memory-access=allow)
fi

case "$mode" in
  smoke)
    # Every benchmark method, the smallest parameter of each kind, one short measured iteration.
    settings=(-f 1 -wi 0 -i 1 -r 100ms -p fanOut=16 -p reads=8 -p n=64 -p grainMicros=100 -p device="$devices")
    ;;
  quick)
    # 1 fork; the parameters the targets need, one size of each scaling workload.
    # Replay has a mode of its own (replay).
    settings=(-f 1 -wi 1 -w 1s -i 3 -r 500ms -p fanOut=256 -p reads=64 -p n=64 -p idle=hot -p device="$devices"
      -e '\.(Replay\.[a-z]+|Metg\.replay)$')
    ;;
  full)
    settings=(-f 2 -wi 3 -w 500ms -i 5 -r 500ms -p device="$devices")
    ;;
  targets)
    # What the target table checks, on the threaded engines: RandomDag (profiler off/on), LinearChain and
    # Independent (with bulk(16)), Metg, CpuParallel G=10/100 µs, ComputeCopyOverlap; no Dexecutor.
    settings=(-f 2 -wi 2 -w 500ms -i 5 -r 500ms -p engine=pooled,perdevice -p grainMicros=10,100 -p device="$devices")
    ;;
  replay)
    # Short iterations (a run is 1-40 ms, so 12-500 runs per iteration) so that 53 benchmarks x 2 forks
    # (about 3.5 s each: JVM start, 0.5 s warm-up, 3 x 0.5 s measured) fit in about 7 minutes.
    settings=(-f 2 -wi 1 -w 500ms -i 3 -r 500ms -p grainNanos=250,1000,4000)
    ;;
  profile)
    # One fork: JMH's JFR profiler names each recording by benchmark, so a second fork would overwrite it.
    # Longer iterations than targets', for ~1,000 samples per benchmark; cf for comparison (its allocation).
    # Every engine result a target row is judged on, with the parameters targets gives it, so that each
    # missed row quotes the profile of the same benchmark, parameters and engine variant: RandomDag with
    # the profiler off and on, CpuParallel G=10 and 100 µs, ComputeCopyOverlap on every device measured.
    # (Only Metg is left out: its row judges a crossing between op lengths, not one result.)
    # Time: 26 benchmarks (28 with OpenCL; 14 before profiling=on, Independent's bulk(16), CpuParallel and
    # ComputeCopyOverlap were added), each ~8 s in JMH (JVM start, 2 x 1 s warm-up + 5 x 1 s measured, the
    # JFR dump: the 14 took 1:51), so ~3.5 min (~3.7 with OpenCL), plus ~1 min for the machine probe,
    # ProfileSummary reading the recordings and the report: ~4.5 min in all (was ~3). Shorter iterations for the long-grained
    # workloads (4-50 ms per run, so a 1 s iteration still has 20-250 runs) would save ~25 s, but need a
    # second JMH invocation with its own settings and JSON: not worth it.
    settings=(-f 1 -wi 2 -w 1s -i 5 -r 1s -p engine=pooled,perdevice -p bulkEngine=pooled+bulk16,perdevice+bulk16
      -p baseline=cf -p profiling=off,on -p grainMicros=10,100 -p device="$devices")
    ;;
esac
includes=()
case "$mode" in
  replay) includes=('\.(Replay\.(engine|baseline)|Metg\.(engine|replay|baseline))$') ;;
  targets) includes=('\.(RandomDag|LinearChain|Independent|Metg|CpuParallel|ComputeCopyOverlap)\.(engine|bulk|baseline)$') ;;
  # Baselines only where cf is one (CpuParallel's and ComputeCopyOverlap's are judged against serial and lanes).
  profile) includes=('\.(RandomDag\.(engine|baseline)|(LinearChain|Independent)\.(engine|bulk|baseline)|(CpuParallel|ComputeCopyOverlap)\.engine)$') ;;
esac
# A leading regex replaces the mode's selection (JMH would run the union of both).
user_regex=()
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  user_regex=("$1")
  includes=("$1")
  shift
fi

# The caller's options win: drop each of ours (option and value) that the caller's arguments also set
# (for -p, the same parameter), since JMH refuses an option given twice.
user_args=("$@")
overridden() { # OPT VALUE
  local prev="" a
  for a in "${user_args[@]}"; do
    if [ "$1" = -p ]; then
      if [ "$prev" = -p ] && [ "${a%%=*}" = "${2%%=*}" ]; then return 0; fi
    elif [ "$a" = "$1" ]; then
      return 0
    fi
    prev="$a"
  done
  return 1
}
ours=()
for ((k = 0; k < ${#settings[@]}; k += 2)); do
  overridden "${settings[k]}" "${settings[k + 1]}" || ours+=("${settings[k]}" "${settings[k + 1]}")
done

# Every measured run records the core-to-core round trip around each iteration (benchmarks/README.md,
# "Host placement"); not the profile step, whose JFR recordings would count the probe as the pusher's work.
profilers=(-prof org.depengine.benchmarks.report.HostPlacementProfiler)
json="$out/$name.json"
txt="$out/$name.txt"
if [ "$mode" = profile ]; then
  # Stored as results/profiles/jdkN.*: not a MODE-jdkN.json run of its own, but notes on the targets run.
  mkdir -p "$out/profiles"
  json="$scratch/jmh.json"
  txt="$out/profiles/jdk$jdk.txt"
  profilers=(-prof gc -prof "jfr:dir=$scratch/jfr;configName=$here/profile.jfc;postProcessor=org.depengine.benchmarks.report.JfrBenchmarkTag")
fi

echo "== $name: $("$java" -version 2>&1 | head -1); JMH ${ours[*]} ${includes[*]} $*"
[ "$mode" = profile ] || cp "$meta" "$out/$name.properties"
status=0
"$java" ${host_args[@]+"${host_args[@]}"} -jar "$jar" "${ours[@]}" ${profilers[@]+"${profilers[@]}"} -jvmArgsPrepend "$fork_jvm_args -Dbench.spin.iterationsPerMicro=$spin" -rf json -rff "$json" ${includes[@]+"${includes[@]}"} "$@" 2>&1 | tee "$txt" || status=$?
if grep -q '<failure>' "$txt"; then
  echo "== some benchmarks FAILED (see <failure> in $txt); the report leaves them out" >&2
  status=1
fi
if [ "$mode" = profile ]; then
  if [ -s "$json" ]; then
    "$java" -cp "$jar" org.depengine.benchmarks.report.ProfileSummary "$json" "$scratch/jfr" "$out/profiles/jdk$jdk.json" "$commit"
    echo "== wrote $out/profiles/jdk$jdk.json"
  else
    echo "== no JMH results: profile summary not written" >&2
    status=1
  fi
fi

if [ "$mode" = smoke ]; then
  report "$out" "$out/RESULTS.md"
else
  report "$here/results" "$here/RESULTS.md"
fi
# The targets run's misses are explained by a profile of the same code and JDK, recorded right after.
if [ "$mode" = targets ] && [ "${BENCH_PROFILE:-on}" != off ]; then
  "$0" profile ${user_regex[@]+"${user_regex[@]}"} "$@" || status=1
fi
exit "$status"
