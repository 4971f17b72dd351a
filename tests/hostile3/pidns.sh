#!/bin/sh
./ev 1000
grep -o '"event":"start","pid":[0-9]*,"ppid":[0-9]*,"exe":"[^"]*"' "$ALLOCAB_PROBE_FILE" > pidns_records.txt
