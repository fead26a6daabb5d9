#!/usr/bin/env bash
# Shared by the scripts/h200_issue*.sh runs on the lent H200 (after `.gpu-stack/device.sh assemble`).
# A run goes to the background, so that each device call can return within its 10 minutes while the
# machine keeps working:
#   setsid nohup bash scripts/h200_issueN.sh run >/tmp/iN.log 2>&1 </dev/null &
#   bash scripts/h200_issueN.sh wait SECONDS   # tail the log until done or SECONDS pass, results to $OUT
# Sourced with the run's name (i15, i16): sets $o (its result folder) and defines step; `wait` exits here.
name=$1 action=$2
o=/tmp/$name
if [ "$action" = wait ]; then
  end=$((SECONDS + ${3:-500}))
  while [ $SECONDS -lt $end ] && [ ! -e "$o/done" ]; do sleep 10; done
  tail -40 "/tmp/$name.log" | cut -c1-230
  tar -C /tmp -czf "$OUT/$name.tgz" "$name" "$name.log" 2>/dev/null; exit 0
fi
rm -rf "$o"; mkdir -p "$o"
base_ld_library_path=${LD_LIBRARY_PATH:-}  # the machine's own, before the stack's lines
# RAW=1: the wheel layout as pip leaves it, fixed only by the lines `tfgpu env` prints (what a user does).
if [ "${RAW:-0}" = 1 ]; then
  source .gpu-stack/device.sh raw
  export PYTHONPATH=$PWD/src:$PYTHONPATH PYTHONUNBUFFERED=1
  python3 -m tfgpu env >"$o/tfgpu-env.txt" 2>&1
  eval "$(python3 -m tfgpu env 2>/dev/null)"
else
  source .gpu-stack/device.sh env
  export PYTHONPATH=$PWD/src:$PYTHONPATH PYTHONUNBUFFERED=1
fi
nvidia-smi --query-gpu=name,driver_version,memory.used,utilization.gpu --format=csv >"$o/nvidia-smi.txt" 2>&1
step() {  # step NAME COMMAND...: its output in $o/NAME.txt and the log, its exit status and seconds after it
  local name=$1 t0=$SECONDS; shift
  echo "== $name"; "$@" 2>"$o/$name.stderr" | tee "$o/$name.txt"; echo "[exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s]" | tee -a "$o/$name.txt"
}
