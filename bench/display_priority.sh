#!/usr/bin/env bash
# Card -> display message with the machine busy, the table at the default priority and at the
# shipped unit's Nice=-10 (config/croupier@.service), alternated: one JSON line per run on
# stdout (display_latency.py's, with "nice" and "load_at_start" added).
#
#   bench/display_priority.sh [PAIRS] [CARDS] [BUSY]    (3 pairs, 1,500 cards, 2 busy loops)
#
# The load is BUSY pure-Python loops at the default priority, one a core on these 2-core
# machines. Lowering the niceness needs root (or CAP_SYS_NICE), as systemd has.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
cards=${2:-1500}
busy=${3:-2}
python=${PYTHON:-.venv/bin/python}
loops=()
for _ in $(seq "$busy"); do
    python3 -c "while True: pass" &
    loops+=($!)
done
trap 'kill "${loops[@]}" 2>/dev/null || true' EXIT
sleep 5
for _ in $(seq "$pairs"); do
    for nice in 0 -10; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        nice -n "$nice" "$python" bench/display_latency.py --cards "$cards" 2>/dev/null \
            | "$python" -c "import json, sys; d = json.load(sys.stdin); \
d.update(nice=$nice, load_at_start=$load); print(json.dumps(d))"
    done
done
