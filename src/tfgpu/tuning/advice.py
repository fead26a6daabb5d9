"""The code change that applies the winner, and the large-batch caveat (pure)."""

from __future__ import annotations

from tfgpu.model.tune import TrialConfig


def code_change(baseline: TrialConfig, best: TrialConfig) -> str:
    """A diff-style snippet from the starting configuration to the winner."""
    lines = []
    if best.precision != baseline.precision or best.allocator != baseline.allocator:
        args = []
        if best.precision != "float32":
            args.append('precision="mixed"')
        if best.allocator == "cuda_malloc_async":
            args.append('memory="async"')
        lines.append(f"+ tfgpu.setup({', '.join(args)})   # first thing, before any model code")
    if baseline.input == "numpy":
        old_fit = f"model.fit(x, y, batch_size={baseline.batch_size})"
    else:
        old_fit = f"model.fit(ds.batch({baseline.batch_size}))"
    compile_extra = []
    if best.jit_compile != baseline.jit_compile:
        compile_extra.append(f"jit_compile={best.jit_compile!r}")
    if best.steps_per_execution != baseline.steps_per_execution:
        compile_extra.append(f"steps_per_execution={best.steps_per_execution}")
    if compile_extra:
        lines.append("- model.compile(optimizer=..., loss=...)")
        lines.append(f"+ model.compile(optimizer=..., loss=..., {', '.join(compile_extra)})")
    lines.append(f"- {old_fit}")
    if best.input == "numpy":
        lines.append(f"+ model.fit(x, y, batch_size={best.batch_size})")
    else:
        cache = ".cache()" if best.input == "tf.data+cache" else ""
        lines.append(
            f"+ ds = tf.data.Dataset.from_tensor_slices((x, y)){cache}.batch({best.batch_size}).prefetch(tf.data.AUTOTUNE)"
        )
        lines.append("+ model.fit(ds)")
    return "\n".join(lines)


def batch_caveat(baseline: TrialConfig, best: TrialConfig) -> str | None:
    """The learning-rate note when the batch grew."""
    if best.batch_size <= baseline.batch_size:
        return None
    factor = best.batch_size / baseline.batch_size
    return (
        f"The batch grew {factor:g}x, which changes the training dynamics: scale the learning rate by {factor:g} "
        "(the linear scaling rule, Goyal et al. 2017, https://arxiv.org/abs/1706.02677) with a few epochs of warm-up, "
        "and compare the validation curve with the original run."
    )
