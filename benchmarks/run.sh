#!/usr/bin/env bash
# Runs the depengine JMH benchmarks and regenerates benchmarks/RESULTS.md.
#
#   benchmarks/run.sh quick   [JMH options...]   ~6 min on 2 cores: 1 fork, short iterations, a parameter subset
#   benchmarks/run.sh full    [JMH options...]   ~22 min on 2 cores: 2 forks, every parameter
#   benchmarks/run.sh targets [JMH options...]   ~12 min on 2 cores: 2 forks x 5 iterations of what issue #16's
#                                                targets need (pooled and perdevice, their baselines)
#   benchmarks/run.sh smoke   [JMH options...]   ~3 min: every benchmark once, to check they all work
#                                                (results and report under benchmarks/target/smoke, not stored)
#   benchmarks/run.sh report                     only regenerate RESULTS.md from benchmarks/results/
#
# The JDK is the one in JAVA_HOME (else `java` on the PATH): run it once per JDK, e.g.
#   benchmarks/run.sh full
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 benchmarks/run.sh full
# Each run stores benchmarks/results/MODE-jdkN.json (JMH's JSON), MODE-jdkN.properties (machine and
# JDK) and MODE-jdkN.txt (JMH's console output), replacing an earlier run of the same mode and JDK;
# RESULTS.md is then regenerated from every stored run (sections: mode × JDK).
# Extra arguments go to JMH, e.g. a benchmark regex (`RandomDag`) or -jvmArgsAppend -Ddepengine.cpu.workers=2
# (run.sh itself uses -jvmArgsPrepend to hand every fork the busy-spin rate it calibrated once).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
mode="${1:-}"
case "$mode" in
  quick|full|smoke|targets|report) shift ;;
  *) echo "usage: $0 quick|full|smoke|targets|report [JMH options...]" >&2; exit 2 ;;
esac

if [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; else java="$(command -v java)"; fi
jar="$here/target/benchmarks.jar"

# Build when the jar is missing or older than any source or pom of the project.
if [ ! -f "$jar" ] || [ -n "$(find "$root" \( -name .git -o -name target \) -prune -o \
      \( -name '*.java' -o -name pom.xml \) -newer "$jar" -print -quit)" ]; then
  echo "== building benchmarks/target/benchmarks.jar"
  (cd "$root" && mvn -B -ntp -q -pl benchmarks -am -DskipTests package)
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
trap 'rm -f "$meta" "$meta.log"' EXIT
if ! "$java" -cp "$jar" org.depengine.benchmarks.report.MachineInfo "$meta" "$mode" 2>"$meta.log"; then
  cat "$meta.log" >&2
  echo "== could not record the machine (MachineInfo failed, above)" >&2
  exit 1
fi
jdk="$(sed -n 's/^java\.feature=//p' "$meta")"
name="$mode-jdk$jdk"
devices=cpu
if grep -q '^opencl\.available=true' "$meta"; then devices=cpu,opencl; fi
# One busy-spin calibration for the whole run, so every fork (every contender) does the same work.
spin="$(sed -n 's/^spin\.iterationsPerMicro=//p' "$meta")"

case "$mode" in
  smoke)
    # Every benchmark method, the smallest parameter of each kind, one short measured iteration.
    settings=(-f 1 -wi 0 -i 1 -r 100ms -p fanOut=16 -p reads=8 -p n=64 -p grainMicros=100 -p device="$devices")
    ;;
  quick)
    # 1 fork; the parameters the targets need, one size of each scaling workload.
    settings=(-f 1 -wi 1 -w 1s -i 3 -r 500ms -p fanOut=256 -p reads=64 -p n=64 -p idle=hot -p device="$devices")
    ;;
  full)
    settings=(-f 2 -wi 3 -w 500ms -i 5 -r 500ms -p device="$devices")
    ;;
  targets)
    # What the target table checks, on the threaded engines: RandomDag (profiler off/on), LinearChain and
    # Independent (with bulk(16)), Metg, CpuParallel G=10/100 µs, ComputeCopyOverlap; no Dexecutor.
    settings=(-f 2 -wi 2 -w 500ms -i 5 -r 500ms -p engine=pooled,perdevice -p grainMicros=10,100 -p device="$devices")
    ;;
esac
includes=()
if [ "$mode" = targets ]; then
  includes=('\.(RandomDag|LinearChain|Independent|Metg|CpuParallel|ComputeCopyOverlap)\.(engine|bulk|baseline)$')
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

echo "== $name: $("$java" -version 2>&1 | head -1); JMH ${ours[*]} $*"
cp "$meta" "$out/$name.properties"
status=0
"$java" -jar "$jar" "${ours[@]}" -jvmArgsPrepend "-Dbench.spin.iterationsPerMicro=$spin" -rf json -rff "$out/$name.json" ${includes[@]+"${includes[@]}"} "$@" 2>&1 | tee "$out/$name.txt" || status=$?
if grep -q '<failure>' "$out/$name.txt"; then
  echo "== some benchmarks FAILED (see <failure> in $out/$name.txt); the report leaves them out" >&2
  status=1
fi

if [ "$mode" = smoke ]; then
  report "$out" "$out/RESULTS.md"
else
  report "$here/results" "$here/RESULTS.md"
fi
exit "$status"
