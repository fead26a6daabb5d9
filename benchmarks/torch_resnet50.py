"""PyTorch's ResNet-50 training rate on the same GPU: the peer issue 16 compares TensorFlow with.

torchvision ResNet-50, batch 256 of 224x224 images made on the GPU and kept there, channels_last,
SGD, cross-entropy; 10 warm-up steps, then 30 timed, in TF32, bf16 autocast, fp16 autocast with
a gradient scaler (as Keras's mixed_float16 scales the loss) and full float32.
Run on the H200 on 2026-12-03 (as an inline script with the same steps): 3,161 / 4,737 / 976 img/s
(TF32 / bf16 / float32; docs/examples/h200-torch-resnet50.txt has 6,112 for fp16 autocast, 2026-12-02).

    python benchmarks/torch_resnet50.py [--profile]

``--profile`` adds, for TF32 and bf16, a kernel summary of 3 steps from torch.profiler, cut the way
benchmarks/resnet50_tf_vs_torch.py cuts TensorFlow's (one line ``profile PRECISION {json}`` each).
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable
from typing import Any

from resnet50_tf_vs_torch import kernel_summary  # the same cut as TensorFlow's profile

AUTOCAST = {"bf16": "bfloat16", "fp16": "float16"}
PROFILED = ("tf32", "bf16")
PROFILED_STEPS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", action="store_true")
    profile = parser.parse_args().profile
    import torch
    import torchvision

    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(256, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (256,), device="cuda")

    def step(precision: str, scaler: torch.amp.GradScaler) -> None:
        dtype = getattr(torch, AUTOCAST.get(precision, "float32"))
        with torch.autocast("cuda", dtype=dtype, enabled=precision in AUTOCAST):
            loss = loss_fn(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    for precision in ("tf32", "bf16", "fp16", "fp32"):
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        torch.backends.cudnn.allow_tf32 = precision == "tf32"
        scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")
        for _ in range(10):
            step(precision, scaler)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(30):
            step(precision, scaler)
        torch.cuda.synchronize()
        print(precision, round(256 * 30 / (time.perf_counter() - start)), "img/s", flush=True)
        if profile and precision in PROFILED:
            print(
                "profile",
                precision,
                json.dumps(profile_steps(torch, functools.partial(step, precision, scaler))),
                flush=True,
            )
    print(torch.__version__, torchvision.__version__)


def profile_steps(torch: Any, step: Callable[[], None]) -> dict[str, Any]:
    """torch.profiler's kernels over a few steps, summarised as TensorFlow's are; a failure is an "error" entry."""
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            start = time.perf_counter()
            for _ in range(PROFILED_STEPS):
                step()
            torch.cuda.synchronize()
            wall = time.perf_counter() - start
        kernels = [
            (e.name, int(e.time_range.start * 1e6), int(e.time_range.elapsed_us() * 1e6))  # us -> ps
            for e in prof.events()
            if e.device_type == torch.autograd.DeviceType.CUDA
        ]
    except (RuntimeError, AttributeError, TypeError, ValueError) as error:  # the other precisions' rates still come
        return {"error": f"{type(error).__name__}: {error}"}
    if not kernels:
        return {"error": "torch.profiler recorded no CUDA kernel"}
    return kernel_summary(kernels, PROFILED_STEPS, wall)


if __name__ == "__main__":
    main()
