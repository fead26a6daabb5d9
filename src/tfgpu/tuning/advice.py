"""The code change that applies the winner, the large-batch caveat and the notes on XLA and precision (pure)."""

from __future__ import annotations

from dataclasses import replace

from tfgpu.model.tune import TrialConfig, TrialOutcome, TuneResult
from tfgpu.monitor.verdict import BUSY_PERCENT  # "busy" means the same as in the training verdict


def code_change(baseline: TrialConfig, best: TrialConfig) -> str:
    """A diff-style snippet from the starting configuration to the winner ("" when they do the same)."""
    lines = []
    if (best.precision, best.allocator, best.batchnorm) != (baseline.precision, baseline.allocator, baseline.batchnorm):
        args = []
        if best.precision != "float32":
            args.append('precision="mixed"')
        if best.allocator == "cuda_malloc_async":
            args.append('memory="async"')
        if best.batchnorm == "fused":
            args.append('batchnorm="fused"')
        lines.append(f"+ tfgpu.setup({', '.join(args)})   # first thing, before any model code")
    compile_extra = []
    if best.xla != baseline.xla:
        compile_extra.append(f"jit_compile={best.jit_compile!r}")
    if best.steps_per_execution != baseline.steps_per_execution:
        compile_extra.append(f"steps_per_execution={best.steps_per_execution}")
    if compile_extra:
        lines.append("- model.compile(optimizer=..., loss=...)")
        lines.append(f"+ model.compile(optimizer=..., loss=..., {', '.join(compile_extra)})")
    if (best.input, best.batch_size) != (baseline.input, baseline.batch_size):
        if baseline.input == "numpy":
            lines.append(f"- model.fit(x, y, batch_size={baseline.batch_size})")
        else:
            lines.append(f"- model.fit(ds.batch({baseline.batch_size}))")
        if best.input == "numpy":
            lines.append(f"+ model.fit(x, y, batch_size={best.batch_size})")
        else:
            cache = ".cache()" if best.input == "tf.data+cache" else ""
            prefetch = (
                '.apply(tf.data.experimental.prefetch_to_device("/GPU:0"))'
                if best.input == "tf.data+device"
                else ".prefetch(tf.data.AUTOTUNE)"
            )
            shuffle = ".shuffle(len(x))" if baseline.input == "numpy" else ""  # fit(x, y) shuffled every epoch
            lines.append(
                f"+ ds = tf.data.Dataset.from_tensor_slices((x, y)){cache}{shuffle}.batch({best.batch_size}){prefetch}"
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


def xla_break_even(result: TuneResult) -> str | None:
    """When XLA won: how many samples its first run takes to earn back the compilation, and what later runs pay.

    Trials are compared warm. The compilation is paid once per model and input shape: under
    ``tfgpu run`` or ``tfgpu.setup()`` the XLA cache keeps the programs, and the next run loads
    them (the seeds' MNIST CNN on the H200: first epoch 13.2 s compiling, 3.8 s loading, 2.5 s warm).
    """
    best = result.best
    if best.config.jit_compile is not True or not best.samples_per_second or best.warmup_seconds is None:
        return None
    plain = replace(best.config, jit_compile=False)
    base = next((t for t in result.trials if t.config == plain and t.samples_per_second), None)
    if base is None or base.warmup_seconds is None or not base.samples_per_second:
        return None
    saving = 1.0 / base.samples_per_second - 1.0 / best.samples_per_second
    extra = best.warmup_seconds - base.warmup_seconds
    if saving <= 0 or extra <= 0:
        return None
    gain = best.samples_per_second / base.samples_per_second - 1.0
    return (
        f"XLA is {gain:.0%} faster once compiled; its first epoch took {extra:.0f} s longer, which the first run "
        f"earns back after {extra / saving:,.0f} samples. That compilation is paid once: train with tfgpu run "
        "(or tfgpu.setup()) and later runs of the same model and shapes load it from the XLA cache. Without the "
        "cache, keep jit_compile=False for runs shorter than that."
    )


def xla_unmeasured(result: TuneResult) -> bool:
    """The start compiles with XLA and no XLA trial gave a rate (the budget ran out, it failed or was skipped)."""
    return result.start_config.xla and not any(t.step == "XLA" and t.samples_per_second for t in result.trials)


def recommended(result: TuneResult, winner: TrialConfig) -> TrialConfig:
    """The configuration to recommend: the winner, keeping the script's XLA when XLA was never measured.

    The trials run without XLA until the last one: a winner measured only without it says nothing
    about the script's own (XLA) rate, so switching XLA off would be an unmeasured change (on the
    H200, ResNet-50 under XLA ran 2x the non-XLA winner).
    """
    return replace(winner, jit_compile=result.start_config.jit_compile) if xla_unmeasured(result) else winner


def xla_unmeasured_note(result: TuneResult) -> str | None:
    """What the recommendation leaves alone when the script's XLA could not be compared."""
    if not xla_unmeasured(result):
        return None
    xla = next((t for t in result.trials if t.step == "XLA"), None)
    why = f" ({xla.outcome.value}: {xla.reason})" if xla is not None and xla.reason else ""
    return (
        f"XLA (on in the script: jit_compile={result.start_config.jit_compile!r}) gave no figure{why}, so the "
        "trials, all measured without it, cannot say whether to switch it off: the change above keeps it. Tune "
        "with a longer --budget to compare; a second tune of the same model loads XLA's programs from the cache "
        "instead of compiling them."
    )


def precision_note(result: TuneResult) -> str | None:
    """When every mixed policy tried lost to float32 on a busy GPU: the kernels, not the input, set the pace.

    Measured on the H200: ResNet-50 under TF 2.21 + cuDNN 9.3 was 9-11% slower in mixed
    precision with the GPU 86-92% busy, while PyTorch on the same GPU gained 1.5-1.9x; one of
    its convolutions ran at 32 TFLOP/s in bf16 under TF and 347 under PyTorch.
    """
    mixed = [t for t in result.trials if t.step == "precision" and t.samples_per_second]
    if not mixed or any(t.outcome is not TrialOutcome.SLOWER for t in mixed):
        return None
    plain = replace(mixed[0].config, precision="float32")
    ref = next((t for t in result.trials if t.config == plain and t.samples_per_second), None)
    if ref is None or ref.samples_per_second is None or (ref.utilization_percent or 0.0) < BUSY_PERCENT:
        return None
    lost = ", ".join(f"{t.config.precision} {t.samples_per_second:,.0f}" for t in mixed)
    return (
        f"Mixed precision was slower ({lost} vs float32 {ref.samples_per_second:,.0f} samples/s) with the GPU "
        f"{ref.utilization_percent:.0f}% busy: the kernels TensorFlow runs for this model gain nothing from the "
        "tensor cores here, and no input or batch setting changes that. `tfgpu bench --suite conv` measures "
        "TensorFlow's convolutions per precision against the GPU's peak."
    )


def batchnorm_note(result: TuneResult) -> str | None:
    """When the fused batch norm won: why, and what it did on its own.

    Keras 3 on TensorFlow computes each BatchNormalization as separate moments, subtract,
    multiply and add ops, where tf.keras called cuDNN's fused kernel: on the H200 the same
    Keras 3 ResNet-50 trained 1.9x faster through it (docs/performance.md §5b).
    """
    if result.best.config.batchnorm != "fused":
        return None
    trials = list(result.trials)
    fused = next((t for t in trials if t.step == "batch normalization" and t.samples_per_second), None)
    if fused is None or fused.samples_per_second is None:
        return None
    before = [
        t.samples_per_second
        for t in trials[: trials.index(fused)]
        if t.outcome is TrialOutcome.OK and t.samples_per_second
    ]
    gain = f" ({fused.samples_per_second / max(before):.2f}x on its own)" if before else ""
    layers = f"{fused.batchnorm_layers} " if fused.batchnorm_layers else ""
    return (
        f"Fused batch normalization won{gain}: Keras 3 on TensorFlow runs the model's {layers}BatchNormalization "
        'layers as separate small ops; tfgpu.setup(batchnorm="fused") routes them through cuDNN\'s fused kernel '
        "with Keras's results (the same outputs, moving statistics and variables)."
    )
