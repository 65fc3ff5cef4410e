#!/bin/bash
# usage: loop2.sh RUNS CONFIG... ; runs the retention test RUNS times per config in one JVM per config
CP=$(cat /tmp/ret/cp2)
cd /work/wt-core2
N=$1; shift
JAVA=${JAVA:-java}
for c in "$@"; do
  $JAVA -Xss1m -Ddepengine.hangDoctorMs=0 -Ddepengine.test.long=true -cp "/tmp/ret:$CP" Loop $N $c 2>&1 | grep -E "FAIL|^failures|KeptFailures|found" | cut -c1-900 | sed "s/^/[$c] /"
done
