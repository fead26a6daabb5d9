"""PyTorch's ResNet-50 training rate on the same GPU: the peer issue 16 compares TensorFlow with.

torchvision ResNet-50, batch 256 of 224x224 images made on the GPU and kept there, channels_last,
SGD, cross-entropy; 10 warm-up steps, then 30 timed, in TF32, bf16 autocast and full float32.
Run on the H200 on 2026-12-03 (as an inline script with the same steps): 3,161 / 4,737 / 976 img/s.

    python benchmarks/torch_resnet50.py
"""

from __future__ import annotations

import time


def main() -> None:
    import torch
    import torchvision

    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(256, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (256,), device="cuda")

    def step(bf16: bool) -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            loss = loss_fn(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for precision in ("tf32", "bf16", "fp32"):
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        torch.backends.cudnn.allow_tf32 = precision == "tf32"
        for _ in range(10):
            step(precision == "bf16")
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(30):
            step(precision == "bf16")
        torch.cuda.synchronize()
        print(precision, round(256 * 30 / (time.perf_counter() - start)), "img/s", flush=True)
    print(torch.__version__, torchvision.__version__)


if __name__ == "__main__":
    main()
