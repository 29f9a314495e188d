#!/usr/bin/env bash
# Ten million rounds per variant at each-round shuffle, in 1,000,000-round chunks (seeds
# 1701-1710), the variants taken in turn so that a stopped run leaves every variant with the
# same number of finished chunks. Each chunk: croupier simulate VARIANT --rounds 1000000
# --workers 2 --shuffle each-round --seed S --json, run with nice; its report lands in
# bench/results/each-round/VARIANT-seedS-1M.json only once the chunk has finished.
# Then: python bench/simulator_check.py (compares them with croupier analyze).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results/each-round
mkdir -p "$out"
croupier=${CROUPIER:-.venv/bin/croupier}
for seed in $(seq 1701 1710); do
  for variant in nz-pontoon uk-pontoon pa-blackjack pontoon-blackjack; do
    file="$out/$variant-seed$seed-1M.json"
    [[ -s "$file" ]] && continue
    echo "$(date -u +%FT%TZ) start $variant seed $seed" >&2
    nice -n 19 "$croupier" simulate "$variant" --rounds 1000000 --workers 2 \
      --shuffle each-round --seed "$seed" --json > "$file.part"
    mv "$file.part" "$file"
    echo "$(date -u +%FT%TZ) done $variant seed $seed" >&2
  done
done
