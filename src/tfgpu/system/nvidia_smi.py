"""``nvidia-smi`` as the fallback when NVML cannot be used from Python (no nvidia-ml-py)."""

from __future__ import annotations

import csv
import io
import math

from tfgpu.model.facts import DriverFacts, GpuFacts
from tfgpu.model.unavailable import Unavailable
from tfgpu.system.runner import CommandRunner

QUERY_FIELDS = (
    "index",
    "name",
    "uuid",
    "pci.bus_id",
    "driver_version",
    "compute_cap",
    "memory.total",
    "memory.used",
    "temperature.gpu",
    "power.draw",
    "power.limit",
    "clocks.sm",
    "clocks.max.sm",
    "utilization.gpu",
    "persistence_mode",
    "mig.mode.current",
    "ecc.mode.current",
)
_MIB = 1024 * 1024


def _float(value: str, source: str) -> float | Unavailable:
    text = value.strip()
    if not text or text.startswith("[") or text in ("N/A", "Not Supported"):
        return Unavailable(f"nvidia-smi reports {text or 'nothing'}", source)
    try:
        number = float(text)
    except ValueError:
        return Unavailable(f"unparsable {text!r}", source)
    if not math.isfinite(number):  # "inf" and "nan" parse as floats; no reading is either
        return Unavailable(f"nvidia-smi reports {text!r}", source)
    return number


def _int(value: str, source: str) -> int | Unavailable:
    number = _float(value, source)
    return number if isinstance(number, Unavailable) else int(number)


def _flag(value: str, source: str) -> bool | Unavailable:
    text = value.strip().lower()
    if text in ("enabled", "on"):
        return True
    if text in ("disabled", "off"):
        return False
    return Unavailable(f"nvidia-smi reports {value.strip() or 'nothing'}", source)


def parse_query(text: str) -> tuple[DriverFacts, tuple[GpuFacts, ...]]:
    """Facts from ``nvidia-smi --query-gpu=<QUERY_FIELDS> --format=csv,noheader,nounits``.

    Raises:
        ValueError: no GPU line could be read.
    """
    gpus = []
    driver = ""
    for row in csv.reader(io.StringIO(text)):
        if len(row) != len(QUERY_FIELDS):
            continue
        v = dict(zip(QUERY_FIELDS, (c.strip() for c in row), strict=False))
        driver = v["driver_version"]
        src = "nvidia-smi --query-gpu"
        total = _int(v["memory.total"], src)
        used = _int(v["memory.used"], src)
        gpus.append(
            GpuFacts(
                index=int(v["index"]),
                name=v["name"],
                uuid=v["uuid"],
                pci_bus_id=v["pci.bus_id"],
                compute_capability=v["compute_cap"]
                if v["compute_cap"][:1].isdigit()
                else Unavailable("not reported", src),
                memory_total_bytes=total * _MIB if isinstance(total, int) else Unavailable("not reported", src),
                memory_used_bytes=used * _MIB if isinstance(used, int) else Unavailable("not reported", src),
                temperature_celsius=_int(v["temperature.gpu"], src),
                power_draw_watts=_float(v["power.draw"], src),
                power_limit_watts=_float(v["power.limit"], src),
                sm_clock_mhz=_int(v["clocks.sm"], src),
                max_sm_clock_mhz=_int(v["clocks.max.sm"], src),
                utilization_percent=_int(v["utilization.gpu"], src),
                persistence_mode=_flag(v["persistence_mode"], src),
                mig_mode=_flag(v["mig.mode.current"], src),
                ecc_enabled=_flag(v["ecc.mode.current"], src),
            )
        )
    if not gpus:
        raise ValueError("nvidia-smi printed no GPU rows")
    cuda = Unavailable("nvidia-smi --query-gpu does not report it", "nvidia-smi")
    return DriverFacts(driver, cuda, "nvidia-smi"), tuple(gpus)


def collect_with_nvidia_smi(runner: CommandRunner) -> tuple[DriverFacts, tuple[GpuFacts, ...]] | Unavailable:
    """Driver and GPU facts from nvidia-smi, or why it could not give them."""
    argv = ("nvidia-smi", f"--query-gpu={','.join(QUERY_FIELDS)}", "--format=csv,noheader,nounits")
    result = runner.run(argv, 10)
    if result.missing:
        return Unavailable("nvidia-smi is not installed", "nvidia-smi")
    if result.timed_out:
        return Unavailable("nvidia-smi did not answer within 10 s (a hung driver?)", "nvidia-smi")
    if not result.ok:
        message = (result.stdout + result.stderr).strip().splitlines()
        return Unavailable(message[0] if message else f"nvidia-smi exited {result.returncode}", "nvidia-smi")
    try:
        return parse_query(result.stdout)
    except ValueError as exc:
        return Unavailable(str(exc), "nvidia-smi")
