#!/usr/bin/env bash
# mdtab.sh N DIR_A OPTS_A DIR_B OPTS_B [extra args]: alternating local/dist pairs, prints ratio per pair
n=$1; da=$2; oa=$3; db=$4; ob=$5; shift 5
ep() { sed -n 's/^time per epoch: \([0-9.]*\) ms.*/\1/p'; }
for i in $(seq 1 $n); do
  for side in A B; do
    if [ $side = A ]; then d=$da; o=$oa; else d=$db; o=$ob; fi
    l=$(cd $d && JAVA_OPTS="$o" ./run-example MultiDeviceTraining --kvstore local --trace off "$@" 2>&1 | ep)
    x=$(cd $d && JAVA_OPTS="$o" ./run-example MultiDeviceTraining --kvstore dist_sync --workers 2 --trace off "$@" 2>&1 | ep)
    echo "$i $side local $l dist $x ratio $(echo "scale=2; $x/$l" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
