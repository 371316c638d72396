#!/usr/bin/env bash
# Plays the ladder of every bot of every game again and writes it into docs/strength.md (between
# its "ladder:begin" and "ladder:end" lines), from a checkout with geomsim installed. Run from
# the repository's root:
#     docs/make-strength.sh                 # the small sizes of the doc: a few minutes a game
#     DEALS=40 WORKERS=2 docs/make-strength.sh
# GEOMSIM (default: geomsim) is the command that runs geomsim, e.g. "python -m geomsim".
set -euo pipefail
cd "$(dirname "$0")/.."
export MPLBACKEND=Agg
geomsim=${GEOMSIM:-geomsim}
workers=${WORKERS:-1}
out=${OUT:-results/strength}
mkdir -p "$out"

# game, bots, deals: Aztekz's ISMCTS budgets are a fifth of Cibola's (its games are ten times
# longer); each deal is played by 4 line-ups (every bot in every turn position).
ladders=(
  "cibola random,greedy,ismcts:50,ismcts:200 ${DEALS:-8}"
  "aztekz random,greedy,ismcts:10,ismcts:40 ${DEALS:-3}"
  "anasazi random,greedy,planner,mcts ${DEALS:-6}"
)
{
  echo "Made on $(date -u +%Y-%m-%d) with \`docs/make-strength.sh\` (geomsim $($geomsim --version | awk '{print $NF}'), $workers worker(s), nice -n 10):"
  echo
  for ladder in "${ladders[@]}"; do
    read -r game bots deals <<<"$ladder"
    command="geomsim ladder $game --bots $bots -n $deals -p 4 -w $workers"
    nice -n 10 $geomsim ladder "$game" --bots "$bots" -n "$deals" -p 4 -w "$workers" \
      -o "$out/$game" --force --no-progress >/dev/null
    echo "\`$command\`"
    echo
    cat "$out/$game/ladder.md"
    echo
  done
} >"$out/section.md"

python - "$out/section.md" docs/strength.md <<'PY'
import sys
from pathlib import Path

section, doc = Path(sys.argv[1]).read_text(), Path(sys.argv[2])
text = doc.read_text()
begin, end = "<!-- ladder:begin -->\n", "<!-- ladder:end -->"
head, rest = text.split(begin, 1)
doc.write_text(head + begin + section + rest[rest.index(end):])
PY
echo "wrote docs/strength.md (ladders in $out)"
