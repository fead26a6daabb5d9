"""A stand-in serving worker (WorkerSession's protocol): each spec says what to do with its request.

{"do": "answer"} writes an envelope with this process's pid; "crash" aborts with a line on
stderr; "hang" never answers; "exit" leaves cleanly without answering.
"""

import json
import os
import sys
import time

task = sys.argv[1]
assert sys.argv[2] == "--serve"
for line in sys.stdin:
    request = json.loads(line)
    with open(request["spec"]) as fh:
        spec = json.load(fh)
    if spec["do"] == "crash":
        print(f"CUDA error: an illegal memory access was encountered (simulated, pid {os.getpid()})", file=sys.stderr)
        sys.stderr.flush()
        os.abort()
    if spec["do"] == "hang":
        time.sleep(600)
    if spec["do"] == "exit":
        sys.exit(0)
    envelope = {"schema_version": 1, "task": task, "ok": True, "data": {"pid": os.getpid(), "args": sys.argv[3:]}}
    with open(request["output"] + ".tmp", "w") as fh:
        json.dump(envelope, fh)
    os.replace(request["output"] + ".tmp", request["output"])
