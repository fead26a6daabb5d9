"""Record real NVML readings and command outputs on a GPU machine, for the test fakes.

Run on the lent H200 (or any NVIDIA machine) from the repository root:

    PYTHONPATH=src python3 scripts/record_gpu_fixtures.py OUTDIR [--load-seconds 4]

Writes OUTDIR/nvml.json (every NvmlClient query per GPU, idle, then a 10 Hz series while a
torch matmul loads the GPU, if torch is present) and OUTDIR/commands.json (nvidia-smi,
ldconfig -p, /proc and /sys readings). tests/fakes build FakeNvml and FakeCommandRunner from them.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.samples import VIOLATION_METRICS
from tfgpu.nvml.client import CLOCK_KINDS, PynvmlClient
from tfgpu.system.runner import SubprocessRunner

SMI_FIELDS = (
    "index,name,uuid,pci.bus_id,driver_version,compute_cap,memory.total,memory.used,temperature.gpu,"
    "power.draw,power.limit,clocks.sm,clocks.max.sm,utilization.gpu,persistence_mode,mig.mode.current,"
    "ecc.mode.current"
)


def _read(fn: Any, *args: Any) -> Any:
    try:
        value = fn(*args)
    except NvmlUnavailable as exc:
        return {"error": exc.kind, "reason": exc.reason, "source": exc.source}
    if hasattr(value, "__dataclass_fields__"):
        return dict(value.__dict__)
    if isinstance(value, list):
        return [dict(v.__dict__) for v in value]
    return value


def record_nvml(client: PynvmlClient) -> dict[str, Any]:
    """Every query the client offers, for every GPU."""
    out: dict[str, Any] = {
        "driver_version": _read(client.driver_version),
        "cuda_driver_version": _read(client.cuda_driver_version),
        "device_count": _read(client.device_count),
        "gpus": [],
    }
    for i in range(out["device_count"] if isinstance(out["device_count"], int) else 0):
        gpu = {
            name: _read(getattr(client, name), i)
            for name in (
                "name",
                "uuid",
                "pci_bus_id",
                "compute_capability",
                "memory_info",
                "utilization",
                "temperature_celsius",
                "slowdown_temperature_celsius",
                "power_draw_watts",
                "power_limit_watts",
                "clocks_event_reasons",
                "persistence_mode",
                "mig_mode",
                "ecc_enabled",
                "processes",
            )
        }
        gpu["clock_mhz"] = {k: _read(client.clock_mhz, i, k) for k in CLOCK_KINDS}
        gpu["max_clock_mhz"] = {k: _read(client.max_clock_mhz, i, k) for k in CLOCK_KINDS}
        gpu["violation_microseconds"] = {p: _read(client.violation_microseconds, i, p) for p, _, _ in VIOLATION_METRICS}
        out["gpus"].append(gpu)
    return out


def record_series(client: PynvmlClient, seconds: float, interval: float = 0.1) -> list[dict[str, Any]]:
    """A 10 Hz series of the sampled metrics for GPU 0, with per-sample cost."""
    series = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        row = {
            "t": time.monotonic(),
            "utilization": _read(client.utilization, 0),
            "memory_info": _read(client.memory_info, 0),
            "temperature_celsius": _read(client.temperature_celsius, 0),
            "power_draw_watts": _read(client.power_draw_watts, 0),
            "sm_clock_mhz": _read(client.clock_mhz, 0, "sm"),
            "memory_clock_mhz": _read(client.clock_mhz, 0, "memory"),
            "clocks_event_reasons": _read(client.clocks_event_reasons, 0),
        }
        row["sample_cost_seconds"] = time.perf_counter() - t0
        series.append(row)
        time.sleep(max(0.0, interval - (time.perf_counter() - t0)))
    return series


def _torch_load(stop: threading.Event) -> None:
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    while not stop.is_set():
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()


def record_commands() -> dict[str, Any]:
    """Raw outputs of the commands and files the system collectors read."""
    runner = SubprocessRunner()
    commands = {
        "nvidia-smi": ("nvidia-smi",),
        "nvidia-smi-query": ("nvidia-smi", f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits"),
        "ldconfig-p": ("ldconfig", "-p"),
        "uname-a": ("uname", "-a"),
    }
    out: dict[str, Any] = {}
    for key, argv in commands.items():
        r = runner.run(argv, 20)
        out[key] = {"argv": list(argv), "returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
    files = {}
    for path in ("/proc/driver/nvidia/version", "/etc/os-release", "/proc/version", "/proc/1/cgroup"):
        try:
            files[path] = Path(path).read_text(errors="replace")
        except OSError as exc:
            files[path] = {"error": str(exc)}
    pci = {}
    for dev in sorted(Path("/sys/bus/pci/devices").glob("*")):
        try:
            entry = {k: (dev / k).read_text().strip() for k in ("vendor", "device", "class")}
        except OSError:
            continue
        driver = dev / "driver"
        entry["driver"] = os.path.basename(os.readlink(driver)) if driver.is_symlink() else None
        pci[dev.name] = entry
    out["files"] = files
    out["pci"] = pci
    out["dev_nodes"] = sorted(str(p) for p in Path("/dev").glob("nvidia*"))
    return out


def main() -> None:
    """Write nvml.json and commands.json into the output folder."""
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--load-seconds", type=float, default=4.0)
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    client = PynvmlClient()
    nvml = {"idle": record_nvml(client), "idle_series": record_series(client, 1.0)}
    stop = threading.Event()
    try:
        import torch  # noqa: F401
    except ImportError:
        nvml["load_series"] = []
    else:
        worker = threading.Thread(target=_torch_load, args=(stop,), daemon=True)
        worker.start()
        time.sleep(1.5)
        nvml["load_series"] = record_series(client, args.load_seconds)
        nvml["under_load"] = record_nvml(client)
        stop.set()
        worker.join(timeout=30)
    (args.outdir / "nvml.json").write_text(json.dumps(nvml, indent=1))
    (args.outdir / "commands.json").write_text(json.dumps(record_commands(), indent=1))


if __name__ == "__main__":
    main()
