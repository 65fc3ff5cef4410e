#!/usr/bin/env bash
# kv3ab.sh PAIRS EPOCHS : alternates A (/tmp/kv3A, unchanged) and B (/tmp/kv3B) MDT, local vs dist_sync 2 workers
pairs=$1; epochs=$2
for r in $(seq 1 $pairs); do for d in /tmp/kv3A /tmp/kv3B; do
  l=$(cd $d && ./run-example MultiDeviceTraining --kvstore local --trace off --epochs $epochs 2>&1 | sed -n 's/^time per epoch: \([0-9.]*\) ms.*/\1/p')
  w=$(cd $d && ./run-example MultiDeviceTraining --kvstore dist_sync --workers 2 --trace off --epochs $epochs 2>&1 | sed -n 's/^time per epoch: \([0-9.]*\) ms.*/\1/p')
  echo "pair $r $(basename $d) epochs $epochs local_ms $l dist_ms $w ratio $(echo "scale=2; $w/$l" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
done; done
