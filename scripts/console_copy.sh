#!/usr/bin/env bash
# A log as a console copies it: shown in a tmux pane WIDTH columns wide and copied with capture-pane, which
# breaks each long line at the pane's width and drops the blanks a copied line ends with. The copies in
# tests/fixtures/tf_logs/console-copies/ were made so from the recorded GPU-fault logs (tmux 3.3a):
#   bash scripts/console_copy.sh 80 tests/fixtures/tf_logs/gpu-faults/no-gpu-kernel.log > no-gpu-kernel-80.txt
set -eu
width=$1 log=$2 server="console-copy-$$"
tmux -L "$server" -f /dev/null start-server \; set -g history-limit 100000 \; \
  new-session -d -s copy -x "$width" -y 50 "cat $(printf '%q' "$log"); sleep 5"
sleep 2
tmux -L "$server" capture-pane -t copy -p -S -100000
tmux -L "$server" kill-server
