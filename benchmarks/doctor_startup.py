"""Start-up cost of the static doctor and of `import tfgpu`, against the targets of issue 2.

    python benchmarks/doctor_startup.py [--runs 9]

Prints the median wall time of `python -m tfgpu doctor --json --static` (whole process) and of
`import tfgpu` (timed inside fresh interpreters),
each with its ratio to the target (0.3 s and 50 ms). Run it where TensorFlow is installed:
the doctor reads TF's files but must not import it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

DOCTOR_TARGET_SECONDS = 0.3
IMPORT_TARGET_SECONDS = 0.050


def wall(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def import_time(runs: int) -> float:
    """Median in-process time of `import tfgpu` in fresh interpreters."""
    code = "import time; t = time.perf_counter(); import tfgpu; print(time.perf_counter() - t)"
    out = [
        float(
            subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    py = sys.executable
    wall([py, "-m", "tfgpu", "doctor", "--json", "--static"], 1)  # warm the page cache
    empty = wall([py, "-c", "pass"], runs)
    import_cost = import_time(runs)
    doctor = wall([py, "-m", "tfgpu", "doctor", "--json", "--static"], runs)
    try:
        import importlib.util

        has_tf = importlib.util.find_spec("tensorflow") is not None
    except ImportError:
        has_tf = False
    print(f"python {sys.version.split()[0]}; tensorflow installed: {has_tf}; median of {runs} runs")
    print(
        f"tfgpu doctor --json --static: {doctor:.3f} s  (target {DOCTOR_TARGET_SECONDS} s, ratio {doctor / DOCTOR_TARGET_SECONDS:.2f})"
    )
    print(
        f"import tfgpu:                 {import_cost * 1000:.1f} ms (target {IMPORT_TARGET_SECONDS * 1000:.0f} ms, ratio {import_cost / IMPORT_TARGET_SECONDS:.2f})"
    )
    print(f"(empty interpreter start: {empty * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
