import json
import sys

for i in range(200_000):
    sys.stderr.write(f"flood line {i} " + "x" * 80 + "\n")
sys.stderr.write("Cannot dlopen some GPU libraries.\n")
out = sys.argv[sys.argv.index("--output") + 1]
task = sys.argv[1]
with open(out, "w") as fh:
    json.dump(
        {
            "schema_version": 1,
            "task": task,
            "ok": True,
            "data": {"gpus": [], "per_gpu": [], "import_seconds": 0.1, "build": {"version": "2.21.0"}},
            "error": None,
        },
        fh,
    )
