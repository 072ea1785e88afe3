#!/bin/bash
# Issue 44, round 5's data: round 3's recipe (scripts/train_round3_data.sh) with the teacher's
# card search drawing its deals by learned inference (pimc --param infer=4, docs/strategies.md,
# "Learned inference"): on fresh seed 9302 the teacher with it beat the teacher without it by
# +0.171 [+0.066, +0.277] points per deal and seat. The general game first (DDV, then club
# rules), then the forced solos played by net3. Resumable: run it again after an interruption
# and each dataset plays only its missing chunks.
#     bash scripts/train_round5_data.sh [DIR]      # default DIR: data/round5
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/round5}
teacher=(--param rollout_net=1 --param infer=4)
run() { dokosim train data "${teacher[@]}" --jobs 2 --quiet "$@"; }
run --deals 16000 --seed 506 --out "$dir/ddv"
run --deals 8000 --seed 507 --out "$dir/club" --rules club
solo() { run --player net3 "$@"; }
solo --deals 3000 --seed 500 --out "$dir/queens" --contract queens_solo --where "queens(0) >= 4"
solo --deals 3000 --seed 501 --out "$dir/jacks" --contract jacks_solo --where "jacks(0) >= 4"
solo --deals 2000 --seed 502 --out "$dir/clubs" --contract clubs_solo --where "trumps(0) >= 9"
solo --deals 2000 --seed 503 --out "$dir/spades" --contract spades_solo --where "trumps(0) >= 9"
solo --deals 2000 --seed 504 --out "$dir/hearts" --contract hearts_solo --where "trumps(0) >= 9"
solo --deals 2000 --seed 505 --out "$dir/fleischlos" --contract fleischlos_solo --where "aces(0) >= 4"
