#!/usr/bin/env bash
# kv3opt2.sh PAIRS EPOCHS : tree A (unchanged) MDT local vs dist_sync 2, default JIT vs C1 only (JAVA_TOOL_OPTIONS reaches the worker JVMs)
pairs=$1; epochs=$2
for r in $(seq 1 $pairs); do for o in ${OPTS:-"none" "-XX:TieredStopAtLevel=1"}; do
  opt=$o; [ "$o" = none ] && opt=""
  l=$(cd /tmp/kv3A && JAVA_TOOL_OPTIONS="$opt" ./run-example MultiDeviceTraining --kvstore local --trace off --epochs $epochs 2>&1 | sed -n 's/^time per epoch: \([0-9.]*\) ms.*/\1/p')
  w=$(cd /tmp/kv3A && JAVA_TOOL_OPTIONS="$opt" ./run-example MultiDeviceTraining --kvstore dist_sync --workers 2 --trace off --epochs $epochs 2>&1 | sed -n 's/^time per epoch: \([0-9.]*\) ms.*/\1/p')
  echo "pair $r opt $o epochs $epochs local_ms $l dist_ms $w ratio $(echo "scale=2; $w/$l" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
done; done
