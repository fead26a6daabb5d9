"""Issue 16: TensorFlow's ResNet-50 training rate against PyTorch's on the same GPU, lever by lever.

Keras 3 ResNet-50 (keras.applications, synthetic ImageNet shapes, b256, SGD, the batch made on
the GPU and kept there: train_on_batch, except ``spe``, which needs fit()) is trained with each setting below in a TensorFlow child of its own (settings that
patch Keras or are read at start do not leak), in float32 (TF32, TF's default) and
mixed_bfloat16; then torchvision's ResNet-50 with the same batch in the same run
(benchmarks/torch_resnet50.py). Prints images/s, the ratio to PyTorch per precision and, with
--profile, a kernel summary of a few steps per setting (tf.profiler: kernel launches per step,
GPU busy time, top kernels by GPU time, time by kind: convolution / GEMM, elementwise,
reduction, transpose, copy). The profile needs libcupti.so.12 (the nvidia-cuda-cupti-cu12
wheel). Settings:

    keras      Keras 3 as it comes (jit_compile=False: XLA's compile of ResNet-50 is measured apart)
    fused      tfgpu.setup(batchnorm="fused"): cuDNN's fused batch norm (configure/batchnorm.py)
    nobias     fused, and the convolutions' biases removed (each is followed by a batch norm,
               which subtracts it again: the same function, one op less per layer)
    spe        fused, and fit(steps_per_execution=10): ten steps per host call
    auto       an unmodified script under tfgpu.setup(): Keras's own batch norm and Keras's default
               jit_compile ("auto": XLA on a GPU), with tfgpu's XLA cache and lever
    xla        fused, and jit_compile=True (the first step's compile time is reported)
    xla-fit    xla through fit() (tf.data copies the batch in each step): the base of xla-spe
    xla-spe    xla-fit with steps_per_execution=10: XLA runs ten steps per host call

    python benchmarks/resnet50_tf_vs_torch.py [--settings keras,fused] [--precisions float32,mixed_bfloat16]
        [--profile] [--no-torch] [--timeout 300] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Setting:
    """One lever combination: the batch norm tfgpu.setup() gets, Keras's jit_compile, and the loop."""

    batchnorm: str | None  # tfgpu.setup(batchnorm=...); None: tfgpu.setup() is not called
    jit_compile: bool | str
    steps_per_execution: int = 1
    fit: bool = False  # fit() on a tf.data pipeline, not train_on_batch on the GPU-resident batch
    nobias: bool = False


SETTINGS = {
    "keras": Setting(None, False),
    "fused": Setting("fused", False),
    "nobias": Setting("fused", False, nobias=True),
    "spe": Setting("fused", False, steps_per_execution=10, fit=True),
    "auto": Setting("keras", "auto"),
    "xla": Setting("fused", True),
    "xla-fit": Setting("fused", True, fit=True),
    "xla-spe": Setting("fused", True, steps_per_execution=10, fit=True),
}
DEFAULT_SETTINGS = "keras,fused,nobias,spe"
PROFILED_STEPS = 3
PROFILE_ROOT = "/tmp/tfgpu-profile"
"""Each profile's directory, with gpu-planes.xplane.pb: the GPU planes alone (scripts/h200_issue16.sh keeps them)."""
HERE = Path(__file__).resolve().parent
KINDS = (  # the first pattern a kernel name matches names its kind
    ("convolution/GEMM", re.compile(r"cudnn|xmma|gemm|cutlass|conv|sm\d\d_|wgrad|dgrad|fprop|implicit", re.I)),
    ("batch norm", re.compile(r"batch_?norm|bn_", re.I)),
    ("transpose", re.compile(r"transpose|nhwc|nchw|SwapDimension", re.I)),
    ("reduction", re.compile(r"reduc|Reduce|cub::", re.I)),
    ("copy", re.compile(r"memcpy|memset", re.I)),
    ("elementwise", re.compile(r".")),
)


def build_model(keras: Any, nobias: bool) -> Any:
    model = keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=1000)
    if not nobias:
        return model

    def clone(layer: Any) -> Any:
        config = layer.get_config()
        if isinstance(layer, keras.layers.Conv2D) and config.get("use_bias"):
            config["use_bias"] = False
        return layer.__class__.from_config(config)

    return keras.models.clone_model(model, clone_function=clone)


def train(setting: str, precision: str, batch: int, steps: int, profile_dir: str | None) -> dict[str, Any]:
    """One setting, one precision, in this process: images/s over the timed steps, and the profile."""
    import keras
    import numpy as np
    import tensorflow as tf

    import tfgpu

    lever = SETTINGS[setting]
    if lever.batchnorm:
        tfgpu.setup(batchnorm=lever.batchnorm)
    keras.mixed_precision.set_global_policy(precision)
    keras.utils.set_random_seed(0)
    model = build_model(keras, lever.nobias)
    spe = lever.steps_per_execution
    model.compile(
        optimizer="sgd",
        loss="sparse_categorical_crossentropy",
        jit_compile=lever.jit_compile,
        steps_per_execution=spe,
    )
    with tf.device("/GPU:0"):
        x = tf.random.uniform((batch, 224, 224, 3))
        y = tf.random.uniform((batch,), maxval=1000, dtype=tf.int32)
    if lever.fit:  # steps_per_execution needs fit(), whose tf.data copies the batch from the host every step
        data = tf.data.Dataset.from_tensors((x, y)).repeat()

        def run(steps: int) -> None:
            model.fit(data, steps_per_epoch=steps, epochs=1, verbose=0)

    else:  # the batch stays on the GPU, as PyTorch's does (fit() would copy it in: 23 ms a step on the H200)

        def run(steps: int) -> None:
            for _ in range(steps):
                loss = model.train_on_batch(x, y)
            float(np.asarray(loss).ravel()[0])  # waits for the last step

    start = time.perf_counter()
    run(spe)
    first = time.perf_counter() - start
    run(max(steps // 3 // spe, 1) * spe)  # warm-up
    start = time.perf_counter()
    run(steps)
    seconds = time.perf_counter() - start
    row: dict[str, Any] = {
        "setting": setting,
        "precision": precision,
        "images_per_second": batch * steps / seconds,
        "first_step_seconds": first,
        "conv_biases": sum(1 for layer in model.layers if getattr(layer, "use_bias", False)),
    }
    if profile_dir:
        tf.profiler.experimental.start(profile_dir)
        start = time.perf_counter()
        run(PROFILED_STEPS * spe)
        wall = time.perf_counter() - start
        tf.profiler.experimental.stop()
        row["profile"] = summarise_profile(profile_dir, PROFILED_STEPS * spe, wall)
    return row


def summarise_profile(directory: str, steps: int, wall_seconds: float) -> dict[str, Any]:
    """Kernels per step, GPU busy time per step and where the GPU time goes, from the .xplane.pb."""
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    files = sorted(Path(directory).rglob("*.xplane.pb"))
    if not files:
        return {"error": f"no .xplane.pb under {directory}"}
    space = xplane_pb2.XSpace()
    space.ParseFromString(files[-1].read_bytes())
    keep_gpu_planes(space, xplane_pb2, Path(directory) / "gpu-planes.xplane.pb")
    kernels: list[tuple[str, int, int]] = []  # (name, start ps, duration ps)
    by_op: dict[str, float] = defaultdict(float)
    lines_seen = set()
    for plane in space.planes:
        if not plane.name.startswith("/device:GPU:"):
            continue
        for line in plane.lines:
            lines_seen.add(line.name)
            if line.name == "TensorFlow Ops":  # derived from the kernels: their time by TF op type
                for event in line.events:
                    op = plane.event_metadata[event.metadata_id].name
                    by_op[op.rsplit(":", 1)[-1] if ":" in op else op.rsplit("/", 1)[-1]] += event.duration_ps / 1e9
            if not line.name.lower().startswith("stream"):
                continue  # derived lines (TF ops, XLA modules, steps) repeat the kernels' time
            for event in line.events:
                name = plane.event_metadata[event.metadata_id].name
                kernels.append((name, line.timestamp_ns * 1000 + event.offset_ps, event.duration_ps))
    if not kernels:
        return {"error": f"no GPU kernel in the profile (is libcupti.so.12 loadable?); GPU lines: {sorted(lines_seen)}"}
    total_ms = sum(duration for _, _, duration in kernels) / 1e9
    return {
        **kernel_summary(kernels, steps, wall_seconds),
        "ops": [
            {"op": op, "ms_per_step": ms / steps, "share": ms / total_ms}
            for op, ms in sorted(by_op.items(), key=lambda item: -item[1])[:15]
        ],
        "lines": sorted(lines_seen),
    }


def kernel_summary(kernels: list[tuple[str, int, int]], steps: int, wall_seconds: float) -> dict[str, Any]:
    """Launches and GPU time per step, by kind and by kernel, from (name, start ps, duration ps) of each kernel.

    Shared by TensorFlow's profile (tf.profiler's XPlane) and PyTorch's (torch.profiler), so the two
    are cut the same way.
    """
    by_name: dict[str, float] = defaultdict(float)
    launches: Counter[str] = Counter()
    for name, _, duration in kernels:
        short = short_name(name)
        by_name[short] += duration / 1e9  # ms
        launches[short] += 1
    total_ms = sum(by_name.values()) or 1e-9
    kinds: dict[str, float] = defaultdict(float)
    for name, ms in by_name.items():
        kinds[next(kind for kind, pattern in KINDS if pattern.search(name))] += ms
    top = sorted(by_name.items(), key=lambda item: -item[1])[:15]
    return {
        "steps": steps,
        "kernels_per_step": sum(launches.values()) / steps,
        "kernel_ms_per_step": total_ms / steps,
        "gpu_busy_ms_per_step": union_ps([(start, start + d) for _, start, d in kernels]) / 1e9 / steps,
        "wall_ms_per_step": wall_seconds * 1000 / steps,
        "by_kind": {
            kind: {"ms_per_step": ms / steps, "share": ms / total_ms}
            for kind, ms in sorted(kinds.items(), key=lambda i: -i[1])
        },
        "top": [
            {
                "kernel": name,
                "ms_per_step": ms / steps,
                "share": ms / total_ms,
                "launches_per_step": launches[name] / steps,
            }
            for name, ms in top
        ],
    }


EIGEN_FUNCTOR = re.compile(
    r"scalar_\w+?_op|\w+Reducer|Tensor(?:Conversion|Broadcasting|Shuffling|Padding|Slicing|Reduction)Op"
)


def keep_gpu_planes(space: Any, xplane_pb2: Any, path: Path) -> None:
    """The GPU planes alone (kilobytes, where the host's threads make the whole file large): a recording
    of the real format, for tests of a kernel summary that cannot be recorded without a GPU."""
    gpu = xplane_pb2.XSpace()
    gpu.planes.extend(plane for plane in space.planes if plane.name.startswith("/device:GPU:"))
    path.write_bytes(gpu.SerializeToString())


def short_name(name: str) -> str:
    """A kernel's name without its template arguments and parameters (Eigen's run to kilobytes).

    Eigen's kernels are all EigenMetaKernel: the functors in the arguments say which operation ran.
    """
    functors = list(dict.fromkeys(EIGEN_FUNCTOR.findall(name)))[:3] if "Eigen" in name else []
    name = re.sub(r"^void ", "", name)
    depth, out = 0, []
    for char in name:
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif depth == 0:
            out.append(char)
    short = "".join(out).strip() or name
    return (short + (" [" + ", ".join(functors) + "]" if functors else ""))[:120]


def union_ps(intervals: list[tuple[int, int]]) -> int:
    busy, end = 0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            busy += stop - start
            end = stop
        elif stop > end:
            busy += stop - end
            end = stop
    return busy


def run_child(setting: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The setting in a fresh TensorFlow child; a timeout or crash becomes a row saying so."""
    command = [sys.executable, __file__, "--child", setting, "--precisions", args.precisions]
    command += ["--batch", str(args.batch), "--steps", str(args.steps)]
    profile, timeout = args.profile, args.timeout
    if profile:
        command.append("--profile")
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return [{"setting": setting, "error": f"did not finish in {timeout:.0f} s"}]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not rows:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])[-600:]
        rows.append(
            {"setting": setting, "error": f"exit {done.returncode} after {time.perf_counter() - start:.0f} s: {tail}"}
        )
    return rows


def torch_rates(profile: bool) -> tuple[dict[str, float], dict[str, Any]]:
    """PyTorch's img/s per precision and, with ``profile``, its kernel summaries (benchmarks/torch_resnet50.py)."""
    command = [sys.executable, str(HERE / "torch_resnet50.py")] + (["--profile"] if profile else [])
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}  # PyTorch's own CUDA, not TF's wheels
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    rates, profiles = {}, {}
    for line in done.stdout.splitlines():
        parts = line.split(maxsplit=2)
        if len(parts) >= 2 and parts[0] in ("tf32", "bf16", "fp16", "fp32"):
            rates[parts[0]] = float(parts[1])
        elif len(parts) == 3 and parts[0] == "profile":
            profiles[parts[1]] = json.loads(parts[2])
    return rates, profiles


def print_row(row: dict[str, Any], torch: dict[str, float]) -> None:
    if "error" in row:
        print(f"{row['setting']:8} {row.get('precision', ''):15} {row['error']}", flush=True)
        return
    peer = torch.get({"float32": "tf32", "mixed_bfloat16": "bf16", "mixed_float16": "fp16"}.get(row["precision"], ""))
    ratio = f"  {row['images_per_second'] / peer:.2f} of PyTorch" if peer else ""
    print(
        f"{row['setting']:8} {row['precision']:15} {row['images_per_second']:7,.0f} img/s{ratio}"
        f"  (first step {row['first_step_seconds']:.1f} s)",
        flush=True,
    )
    print_profile(row.get("profile"))


def print_profile(profile: dict[str, Any] | None) -> None:
    if not profile:
        return
    if "error" in profile:
        print(f"    profile: {profile['error']}")
        return
    print(
        f"    {profile['kernels_per_step']:,.0f} kernels/step, GPU busy {profile['gpu_busy_ms_per_step']:.1f} of "
        f"{profile['wall_ms_per_step']:.1f} ms/step; "
        + ", ".join(f"{kind} {v['share']:.0%}" for kind, v in profile["by_kind"].items())
    )
    for top in profile["top"][:10]:
        print(
            f"    {top['share']:5.1%} {top['ms_per_step']:7.2f} ms x{top['launches_per_step']:6.0f}  {top['kernel'][:90]}"
        )
    if profile.get("ops"):
        print("    by TF op: " + ", ".join(f"{o['op']} {o['share']:.0%}" for o in profile["ops"][:10]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--settings", default=DEFAULT_SETTINGS)
    parser.add_argument("--precisions", default="float32,mixed_bfloat16")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=30, help="timed steps (a multiple of 10 for spe)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--child", choices=sorted(SETTINGS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    precisions = args.precisions.split(",")
    if args.child:
        for precision in precisions:
            profile_dir = f"{PROFILE_ROOT}/{args.child}-{precision}-{os.getpid()}" if args.profile else None
            print(json.dumps(train(args.child, precision, args.batch, args.steps, profile_dir)), flush=True)
        return
    settings = args.settings.split(",")
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        parser.error(f"unknown setting {unknown}; choose from {', '.join(SETTINGS)}")
    torch, torch_profiles = ({}, {}) if args.no_torch else torch_rates(args.profile)
    if torch:
        print("PyTorch:", ", ".join(f"{k} {v:,.0f} img/s" for k, v in torch.items()), flush=True)
    for precision, summary in torch_profiles.items():
        print(f"PyTorch {precision} profile:", flush=True)
        print_profile(summary)
    rows = []
    for setting in settings:
        for row in run_child(setting, args):
            rows.append(row)
            print_row(row, torch)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "batch": args.batch,
                    "timed_steps": args.steps,
                    "torch": torch,
                    "torch_profiles": torch_profiles,
                    "rows": rows,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
