"""Cost of GPU monitoring: per-sample NVML cost (vs nvitop and gpustat) and its effect on training.

    python benchmarks/monitor_overhead.py [--samples 500] [--epochs 3]

1. Per-sample cost: one tfgpu sample of every GPU (SampleReader.read), against one nvitop
   Device snapshot of the same metrics and one gpustat.new_query(), where those are installed;
   prints microseconds per sample and the ratios.
2. Training: the MNIST CNN (tuned tf.data input, the busiest step loop) with and without
   GpuMonitor at 10 Hz in the same process, alternating runs; prints the step-time ratio and
   the sampler thread's CPU time per second of wall time (targets: < 1 % each).
Needs an NVIDIA GPU for meaningful figures; without one it says so.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.nvml.client import PynvmlClient
from tfgpu.nvml.sample import SampleReader


def per_sample(samples: int) -> None:
    client = PynvmlClient()
    try:
        count = client.device_count()
    except NvmlUnavailable as exc:
        print(f"no NVIDIA GPU: {exc.reason}; per-sample cost not measured")
        return
    reader = SampleReader(client)
    for i in range(count):
        reader.read(i, 0.0)
    start = time.perf_counter()
    for _ in range(samples):
        for i in range(count):
            reader.read(i, 0.0)
    ours = (time.perf_counter() - start) / samples
    print(f"tfgpu: {ours * 1e6:.0f} us per sample of {count} GPU(s)")
    try:
        from nvitop import Device

        devices = Device.all()
        # The same metrics tfgpu reads; nvitop's throttle-reason call needs a newer binding than
        # some images have, so it is read when it works.
        reasons = "clocks_event_reasons"
        try:
            getattr(devices[0], reasons)()
        except AttributeError:
            reasons = "performance_state"

        def nvitop_sample() -> None:
            for d in devices:
                d.gpu_utilization(), d.memory_utilization(), d.memory_used(), d.temperature()
                d.power_usage(), d.power_limit(), d.sm_clock(), d.memory_clock(), getattr(d, reasons)()

        nvitop_sample()
        start = time.perf_counter()
        for _ in range(samples):
            nvitop_sample()
        theirs = (time.perf_counter() - start) / samples
        print(f"nvitop: {theirs * 1e6:.0f} us per sample; tfgpu/nvitop = {ours / theirs:.2f}")
    except ImportError:
        print("nvitop not installed: pip install nvitop")
    try:
        import gpustat

        gpustat.new_query()
        start = time.perf_counter()
        for _ in range(samples):
            gpustat.new_query()
        theirs = (time.perf_counter() - start) / samples
        print(f"gpustat: {theirs * 1e6:.0f} us per query; tfgpu/gpustat = {ours / theirs:.2f}")
    except ImportError:
        print("gpustat not installed: pip install gpustat")


def training(epochs: int) -> None:
    import tensorflow as tf
    from mnist_cnn import build_model, make_data

    from tfgpu.integrations.keras import GpuMonitor

    if not tf.config.list_physical_devices("GPU"):
        print("TensorFlow sees no GPU; the training overhead is measured on the CPU only")
    x, y = make_data(60000)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(1024).prefetch(tf.data.AUTOTUNE)
    model = build_model()
    model.compile(loss="sparse_categorical_crossentropy", optimizer="adam", jit_compile=False)
    model.fit(ds, epochs=1, verbose=0)
    plain, monitored, cpu_per_second = [], [], []
    for _ in range(epochs):
        start = time.perf_counter()
        model.fit(ds, epochs=1, verbose=0)
        plain.append(time.perf_counter() - start)
        monitor = GpuMonitor(interval_seconds=0.1, verbose=False)
        start = time.perf_counter()
        model.fit(ds, epochs=1, verbose=0, callbacks=[monitor])
        wall = time.perf_counter() - start
        monitored.append(wall)
        if monitor.sampler is not None:
            cpu_per_second.append(monitor.sampler.cpu_seconds / wall)
    ratio = statistics.median(monitored) / statistics.median(plain)
    steps = 60000 // 1024 + 1
    print(
        f"epoch without monitor {statistics.median(plain):.2f} s, with {statistics.median(monitored):.2f} s "
        f"({statistics.median(plain) / steps * 1000:.1f} ms/step); ratio {ratio:.3f} (target < 1.01)"
    )
    if cpu_per_second:
        print(f"sampler CPU: {statistics.median(cpu_per_second) * 100:.2f} % of one core at 10 Hz (target < 1 %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args()
    per_sample(args.samples)
    if not args.skip_training:
        training(args.epochs)


if __name__ == "__main__":
    main()
