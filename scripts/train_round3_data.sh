#!/bin/bash
# Issue 44, round 3's data: the solos the frontier shows net playing below search
# (docs/studies/frontier.md), dealt and forced by `train data --contract/--where`, played by
# net at every seat and valued by pimc over net rollouts (round 2's teacher). Resumable: run
# it again after an interruption and each dataset plays only its missing chunks.
#     bash scripts/train_round3_data.sh [DIR]      # default DIR: data/round3
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/round3}
run() { dokosim train data --player net --param rollout_net=1 --jobs 2 --quiet "$@"; }
run --deals 3000 --seed 300 --out "$dir/queens" --contract queens_solo --where "queens(0) >= 4"
run --deals 3000 --seed 301 --out "$dir/jacks" --contract jacks_solo --where "jacks(0) >= 4"
run --deals 2000 --seed 302 --out "$dir/clubs" --contract clubs_solo --where "trumps(0) >= 9"
run --deals 2000 --seed 303 --out "$dir/spades" --contract spades_solo --where "trumps(0) >= 9"
run --deals 2000 --seed 304 --out "$dir/hearts" --contract hearts_solo --where "trumps(0) >= 9"
run --deals 2000 --seed 305 --out "$dir/fleischlos" --contract fleischlos_solo --where "aces(0) >= 4"
# The general game beside the forced solos, so that round 3 does not forget it: every deal as
# dealt, played and valued by pimc over net rollouts at every seat (round 2's recipe with round
# 2's net in the rollouts), under DDV and under club rules (poverty, piglets).
run2() { dokosim train data --param rollout_net=1 --jobs 2 --quiet "$@"; }
run2 --deals 16000 --seed 306 --out "$dir/ddv"
run2 --deals 8000 --seed 307 --out "$dir/club" --rules club
