#!/usr/bin/env bash
# Makes every picture of the README and docs/ again, into docs/images/, from a checkout with
# geomsim installed ('.[test,web]' for the screenshot). Run from the repository's root:
#     docs/make-images.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export MPLBACKEND=Agg
images=docs/images
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

geomsim setup anasazi -p 4 -s 7 -o "$images/anasazi-setup.png" --json "$work/setup.json"
geomsim reach --setup "$work/setup.json" --map --player 1 -o "$images/anasazi-reach.png"
python examples/moments.py "$images"                       # cibola-moment.png, aztekz-moment.png
geomsim analyze cibola -p 4 --bots ismcts,greedy,random,random --games 200 -o "$work/batch" --no-progress
cp "$work/batch/analysis.png" "$images/analysis.png"
python benchmarks/bench_web.py --moves 20 --screenshot "$images/web.png"
