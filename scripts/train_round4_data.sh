#!/bin/bash
# Issue 44, round 4's data: the solos, where net3 still plays below search (the round robin's
# breakdown by contract, docs/strategies.md "net3"), played by net3 at every seat and valued by
# pimc_solver (heuristic rollouts, the double-dummy solver in the last six tricks), the player
# that beats net3 in every solo group. Resumable: run it again after an interruption and each
# dataset plays only its missing chunks.
#     bash scripts/train_round4_data.sh [DIR] [SCALE]   # default DIR: data/round4; SCALE 1
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/round4}
scale=${2:-1}
n() { echo $(( $1 * scale )); }
run() { dokosim train data --player net3 --teacher pimc_solver --jobs 2 --quiet "$@"; }
run --deals "$(n 1500)" --seed 400 --out "$dir/queens" --contract queens_solo --where "queens(0) >= 4"
run --deals "$(n 1500)" --seed 401 --out "$dir/jacks" --contract jacks_solo --where "jacks(0) >= 4"
run --deals "$(n 1000)" --seed 402 --out "$dir/clubs" --contract clubs_solo --where "trumps(0) >= 9"
run --deals "$(n 1000)" --seed 403 --out "$dir/spades" --contract spades_solo --where "trumps(0) >= 9"
run --deals "$(n 1000)" --seed 404 --out "$dir/hearts" --contract hearts_solo --where "trumps(0) >= 9"
run --deals "$(n 1000)" --seed 405 --out "$dir/diamonds" --contract diamonds_solo --where "trumps(0) >= 10"
run --deals "$(n 1500)" --seed 406 --out "$dir/fleischlos" --contract fleischlos_solo --where "aces(0) >= 4"
