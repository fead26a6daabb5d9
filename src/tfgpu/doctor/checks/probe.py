"""What TensorFlow itself did when started in a child: GPUs registered, results right, XLA working.

The static checks say what should happen; these say what did, and use the static facts
(libraries found elsewhere, CUDA_VISIBLE_DEVICES) to name the cause when TF sees no GPU.
"""

from __future__ import annotations

import os

from tfgpu.doctor.checks.cuda import cudnn_fix, older_cudnn, tf_cudnn_message
from tfgpu.knowledge.fixes import (
    export_line,
    install_dependencies,
    install_tf_with_cuda,
    lacking_everywhere,
    unreachable_dirs,
    upgrade_dependency,
)
from tfgpu.model.facts import Facts, LibraryCopy, LibraryFacts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.probe import LogEvent, OpCheck, ProbeFacts, ProbeGpu, ProbeOutcome, TrainingCheck, TrainingState
from tfgpu.model.unavailable import Unavailable
from tfgpu.probe.tf_logs import failed_dependencies, failed_libraries

T = Section.TENSORFLOW
GPU_GUIDE = "https://www.tensorflow.org/guide/gpu"
PTX_JIT_SLOW_SECONDS = 30.0
XLA_COMPILE_SLOW_SECONDS = 30.0
"""A first XLA epoch of the probe's tiny CNN longer than this would dominate a short training run."""
TF32_ERROR = 1e-5
"""float32 products on the CPU differ by ~1e-7; TF32 ones by 1e-4 to 1e-3."""


def check_probe(facts: Facts) -> list[Finding]:
    """Did TF start, register the GPUs NVML sees, compute right, and compile with XLA?

    Finding ids: ``tensorflow-sees-gpus`` (ok), ``gpu-not-visible-to-tensorflow``,
    ``tensorflow-import-failed``, ``probe-timed-out``, ``probe-crashed``, ``probe-protocol-error``,
    ``gpu-wrong-results``, ``gpu-op-failed``, ``gpu-first-op-slow``, ``xla-compile-failed``,
    ``cudnn-runtime-mismatch``, ``tf-grabs-all-memory``, ``tensorflow-cpu-only-verdict``,
    ``tf32-in-float32``, ``keras-training-works`` (ok), ``keras-training-failed``,
    ``keras-training-crashed``, ``xla-first-epoch-slow``, ``xla-compile-timed-out``.
    """
    probe = facts.probe
    if probe is None:
        return []
    if probe.outcome is ProbeOutcome.TENSORFLOW_MISSING and facts.tensorflow is None:
        return []  # the static check already says TensorFlow is not installed, with the same fix
    if probe.outcome is not ProbeOutcome.OK:
        return [_failed(facts, probe)]
    out: list[Finding] = []
    nvml_count = 0 if isinstance(facts.gpus, Unavailable) else len(facts.gpus)
    if not probe.gpus:
        out.append(_no_gpu(facts, probe, nvml_count))
    else:
        imported = f"import {probe.import_seconds:.1f} s" if probe.import_seconds is not None else ""
        first = probe.gpus[0].first_op_seconds
        first_text = f", first op {first:.2f} s" if first is not None else ""
        out.append(
            Finding(
                "tensorflow-sees-gpus",
                Severity.OK,
                T,
                f"TensorFlow {probe.tf_version} registered {len(probe.gpus)} GPU(s) ({imported}{first_text})",
            )
        )
        if nvml_count > len(probe.gpus):
            out.append(
                Finding(
                    "gpu-not-visible-to-tensorflow",
                    Severity.WARNING,
                    T,
                    f"TF registered {len(probe.gpus)} of the {nvml_count} GPUs NVML sees",
                    detail=_visible_devices_note(facts)
                    or "Check CUDA_VISIBLE_DEVICES and the 'Ignoring visible gpu device' lines.",
                    hint="unset CUDA_VISIBLE_DEVICES",
                )
            )
        for gpu in probe.gpus:
            out.extend(_gpu_checks(facts, probe, gpu))
        out.extend(_training(facts, probe))
    out.extend(_log_findings(facts, probe))
    return out


def _label(check: TrainingCheck) -> str:
    xla = {"auto": "Keras's default jit_compile (XLA)", "off": "jit_compile=False"}.get(check.jit_compile, "XLA")
    return f"{check.policy} with {xla}"


def _dependency_fix(facts: Facts, probe: ProbeFacts) -> tuple[str, str] | None:
    """(cause, fix) when the log names a library TF's libraries could not load, or a cuDNN TF refused."""
    refused = _cudnn_refused(facts, probe)
    if refused:
        return refused
    failed = failed_dependencies(probe.log_events)
    if not failed:
        return None
    libs = facts.libraries
    names = ", ".join(failed)
    dirs = unreachable_dirs(libs) if isinstance(libs, LibraryFacts) else []
    if dirs:
        return f"{names} could not be loaded: it is installed outside its loader's search path", export_line(dirs)
    major = libs.cuda_major if isinstance(libs, LibraryFacts) else "12"
    return f"{names} could not be loaded", install_dependencies(facts, failed, major)


def _cudnn_mismatch(probe: ProbeFacts) -> tuple[LogEvent, str, str] | None:
    """TF's own line refusing the cuDNN it loaded (cuda_dnn.cc), and the loaded and built versions read from it."""
    event = next((e for e in probe.log_events if e.kind == "cudnn_mismatch"), None)
    if event is None or not event.library or not event.detail:
        return None
    return event, event.library, event.detail


def _cudnn_refused(facts: Facts, probe: ProbeFacts) -> tuple[str, str] | None:
    """(cause, fix) when TF refused the cuDNN it loaded: every convolution, XLA and Keras failure follows from it."""
    mismatch = _cudnn_mismatch(probe)
    if mismatch is None:
        return None
    _, loaded_version, built = mismatch
    static = older_cudnn(facts)
    loaded = static[0] if static else None
    return f"TF refused its cuDNN: '{tf_cudnn_message(loaded_version, built)}'", cudnn_fix(
        facts, loaded, static[1] if static else built
    )


def _training(facts: Facts, probe: ProbeFacts) -> list[Finding]:
    """Did a tiny Keras CNN train with Keras's defaults and without XLA, in float32 and mixed precision?"""
    device = probe.gpus[0].device if probe.gpus else "/GPU:0"
    found = _dependency_fix(facts, probe)
    autotuner = any(e.kind == "autotuner_no_config" for e in probe.log_events)
    why = (found[0] + ". " if found else "") + (
        "XLA's convolution autotuner then found no cuDNN engine it could run. " if autotuner else ""
    )
    if probe.training_state is TrainingState.DIED:
        how = f"signal {probe.signal}" if probe.signal else f"exit status {probe.returncode}"
        tail = " | ".join(probe.stderr_tail.strip().splitlines()[-3:])
        return [
            Finding(
                "keras-training-crashed",
                Severity.ERROR,
                T,
                f"TensorFlow died ({how}) while training a tiny Keras CNN on {device}",
                detail=f"{why}Last log lines: {tail}",
                hint=found[1] if found else "Run your training with `tfgpu explain --run -- python train.py`.",
            )
        ]
    if not probe.training:
        return []
    failed = [t for t in probe.training if not t.ok and not t.timed_out]
    if failed:
        xla_only = all(t.jit_compile != "off" for t in failed) and any(
            t.ok and t.jit_compile == "off" for t in probe.training
        )
        fallback = "until then, model.compile(..., jit_compile=False) trains without XLA" if xla_only else ""
        hint = found[1] if found else (fallback or "Run `tfgpu explain` on your training log.")
        if found and fallback:
            hint += f"   ({fallback})"
        return [
            Finding(
                "keras-training-failed",
                Severity.ERROR,
                T,
                f"A default Keras CNN cannot train on {device}: {'; '.join(_label(t) for t in failed)} failed",
                detail=f"{why}{_short(failed[0].error or '')}".strip(),
                hint=hint,
                link=GPU_GUIDE,
            )
        ]
    trained = [t for t in probe.training if t.ok]
    out = [
        Finding(
            "keras-training-works",
            Severity.OK,
            T,
            f"A Keras CNN trained on {device}: " + "; ".join(_timing(t) for t in trained),
        )
    ]
    out.extend(
        Finding(
            "xla-compile-timed-out",
            Severity.WARNING,
            T,
            f"XLA had not compiled a tiny Keras CNN ({t.policy}) within the probe's budget: {t.error or 'no answer'}",
            detail="Keras compiles models with XLA by default on a GPU (jit_compile='auto'): every first epoch, "
            "and every new input shape, waits this long before training starts. The doctor stopped waiting; "
            "without XLA the same model trained.",
            hint="train under `tfgpu run` (or call tfgpu.setup()): the XLA cache keeps the compiled programs, so "
            "only the first run pays; for a one-off short run, model.compile(..., jit_compile=False) or "
            "`tfgpu run --xla off`; `tfgpu tune` measures both",
        )
        for t in probe.training
        if t.timed_out
    )
    slow = [t for t in probe.training if t.jit_resolved and (t.first_epoch_seconds or 0.0) > XLA_COMPILE_SLOW_SECONDS]
    if slow:
        worst = max(t.first_epoch_seconds or 0.0 for t in slow)
        out.append(
            Finding(
                "xla-first-epoch-slow",
                Severity.INFO,
                T,
                f"XLA spent {worst:.0f} s on the first epoch of a tiny CNN before training",
                detail="Keras compiles the model with XLA by default on a GPU; every new input shape compiles again. "
                "Without a persistent cache, every run and notebook start pays it again.",
                hint="train under `tfgpu run` (or call tfgpu.setup()): the XLA cache keeps the compiled programs and "
                "the next run loads them (the MNIST CNN's first epoch on an H200: 13 s with tfgpu's XLA lever, then 3.8 s; "
                "56 s without either); "
                "model.compile(..., jit_compile=False) for a one-off short run; `tfgpu tune` measures both",
            )
        )
    return out


def _short(error: str, limit: int = 240) -> str:
    """A TF error cut before its HLO dump: the op and status say enough, the log has the rest."""
    head = error.split(" for HLO:", 1)[0] if " for HLO:" in error else error
    return head if len(head) <= limit else head[: limit - 1] + "…"


def _timing(check: TrainingCheck) -> str:
    xla = "XLA" if check.jit_resolved else "no XLA"
    first = f"first epoch {check.first_epoch_seconds:.1f} s" if check.first_epoch_seconds is not None else ""
    step = f", {check.warm_step_seconds * 1000:.1f} ms/step" if check.warm_step_seconds is not None else ""
    return f"{check.policy} {xla} {first}{step}"


def _failed(facts: Facts, probe: ProbeFacts) -> Finding:
    tail = probe.stderr_tail.strip().splitlines()[-5:]
    tail_text = " | ".join(tail)
    if probe.outcome is ProbeOutcome.TIMED_OUT:
        no_gpu = isinstance(facts.gpus, Unavailable) or not facts.gpus
        if no_gpu:  # no GPU, so no PTX to compile: the import itself was slow (a cold disk, a busy CPU)
            why = "There is no GPU here, so this is TensorFlow's import itself: a cold disk, a network file system or a busy CPU."
            hint = f"Run `tfgpu doctor --probe-timeout {2 * probe.timeout_seconds:.0f}`, or `--static` for the checks that need no TensorFlow."
        else:
            why = "A GPU newer than the build (PTX JIT) or a wedged driver does this."
            hint = "export CUDA_CACHE_MAXSIZE=4294967296, then run `tfgpu doctor --probe-timeout 1800` once to fill the JIT cache"
        return Finding(
            "probe-timed-out",
            Severity.ERROR,
            T,
            f"TensorFlow did not finish starting within {probe.timeout_seconds:.0f} s",
            detail=f"The child was killed. {why} Last log lines: {tail_text}",
            hint=hint,
        )
    if probe.outcome is ProbeOutcome.CRASHED:
        how = f"signal {probe.signal}" if probe.signal else f"exit status {probe.returncode}"
        return Finding(
            "probe-crashed",
            Severity.ERROR,
            T,
            f"TensorFlow crashed while starting ({how})",
            detail=f"{probe.error_message or ''} Last log lines: {tail_text}".strip(),
            hint="Run `python -c 'import tensorflow as tf; print(tf.config.list_physical_devices())'` and `tfgpu explain` its log.",
        )
    if probe.outcome is ProbeOutcome.TENSORFLOW_MISSING:
        return Finding(
            "tensorflow-import-failed",
            Severity.ERROR,
            T,
            f"{probe.python} has no TensorFlow",
            detail=probe.error_message or "",
            hint=install_tf_with_cuda(facts),
        )
    if probe.outcome in (ProbeOutcome.IMPORT_FAILED, ProbeOutcome.FAILED):
        return Finding(
            "tensorflow-import-failed",
            Severity.ERROR,
            T,
            f"TensorFlow raised {probe.error_type} while starting",
            detail=(probe.error_message or "").strip().splitlines()[-1] if probe.error_message else tail_text,
            hint=f"Reinstall it: {install_tf_with_cuda(facts)}",
        )
    return Finding(
        "probe-protocol-error",
        Severity.ERROR,
        T,
        "The TensorFlow probe gave no readable answer",
        detail=f"{probe.error_message}. Last log lines: {tail_text}",
        hint="Run again with --static for the checks that need no TensorFlow, and report this.",
    )


def _visible_devices_note(facts: Facts) -> str | None:
    value = facts.env("CUDA_VISIBLE_DEVICES")
    return None if value is None else f"CUDA_VISIBLE_DEVICES={value!r} limits what TF can see."


def _unbindable(libs: LibraryFacts) -> list[tuple[str, LibraryCopy]]:
    """(loader, copy) of each dependency whose loaded copy lacks symbols the loader binds.

    The loader is what TF could not load (set t: libcusparse.so.12 beside CUDA 12.1's libnvJitLink.so.12).
    """
    return [
        (os.path.basename(lib.loaded_by or lib.soname), copy)
        for lib in libs.libraries
        if (copy := lib.unbindable) is not None
    ]


def _library_fix(facts: Facts, libs: LibraryFacts) -> str:
    """What makes TF load its GPU libraries: the line for its loader's search path, else an upgrade, else TF's install.

    The upgrade is for a library whose every copy here lacks symbols its loader binds (an older nvJitLink
    wheel than cuSPARSE's): no search path can help, only a newer copy.
    """
    dirs = unreachable_dirs(libs)
    if dirs:
        return export_line(dirs) + '   (or `eval "$(tfgpu env)"`)'
    stuck = lacking_everywhere(libs)
    return upgrade_dependency(facts, stuck[0][0].soname, libs.cuda_major) if stuck else install_tf_with_cuda(facts)


def _no_gpu(facts: Facts, probe: ProbeFacts, nvml_count: int) -> Finding:
    failed = failed_libraries(probe.log_events)
    kinds = {e.kind for e in probe.log_events}
    libs = facts.libraries
    if failed or "cannot_dlopen" in kinds:
        hint = _library_fix(facts, libs) if isinstance(libs, LibraryFacts) else install_tf_with_cuda(facts)
        # TF 2.21 no longer names the library in its log; the static search knows which it was.
        invisible = (
            [lib.soname for lib in libs.libraries if lib.required and lib.loaded_by is None and lib.loaded is None]
            if isinstance(libs, LibraryFacts)
            else []
        )
        unbound = _unbindable(libs) if isinstance(libs, LibraryFacts) else []
        beside = [f"{loader} (beside {copy.path})" for loader, copy in unbound]
        names = ", ".join(failed or invisible or beside) or "some GPU libraries"
        return Finding(
            "gpu-not-visible-to-tensorflow",
            Severity.ERROR,
            T,
            f"TensorFlow registered no GPU: it could not load {names}",
            detail="TF logged 'Cannot dlopen some GPU libraries' and skipped registering the GPU.",
            hint=hint,
            link=GPU_GUIDE,
        )
    note = _visible_devices_note(facts)
    if note:
        return Finding(
            "gpu-not-visible-to-tensorflow",
            Severity.ERROR,
            T,
            "TensorFlow registered no GPU: CUDA_VISIBLE_DEVICES hides them",
            detail=note,
            hint="unset CUDA_VISIBLE_DEVICES",
        )
    cuinit = next((e for e in probe.log_events if e.kind == "cuinit_failed"), None)
    if cuinit:
        return Finding(
            "gpu-not-visible-to-tensorflow",
            Severity.ERROR,
            T,
            f"TensorFlow registered no GPU: cuInit failed ({cuinit.detail})",
            detail=cuinit.text,
            hint="Check `nvidia-smi`; after a driver upgrade, reboot.",
        )
    if nvml_count == 0:
        return Finding(
            "tensorflow-cpu-only-verdict",
            Severity.INFO,
            T,
            "TensorFlow runs, on the CPU only: there is no GPU for it here",
        )
    return Finding(
        "gpu-not-visible-to-tensorflow",
        Severity.ERROR,
        T,
        f"TensorFlow registered no GPU although NVML sees {nvml_count}",
        detail="See the findings above and the probe's log tail: " + " | ".join(probe.stderr_tail.splitlines()[-3:]),
        link=GPU_GUIDE,
    )


def _tf32(label: str, ok: list[OpCheck]) -> list[Finding]:
    """float32 products that came back with TF32's error, not float32's.

    TF enables TF32 on compute capability 8.0 and newer by default: float32 inputs rounded to
    a 10-bit mantissa. On the H200 the probe's float32 matmul differed from the CPU by 2.7e-4
    (full float32: ~1e-7), and `tfgpu bench` measured 360.7 TFLOP/s with TF32 vs 50.7 without.
    """
    tf32 = [o for o in ok if o.dtype == "float32" and o.op != "reduction" and (o.relative_error or 0.0) > TF32_ERROR]
    if not tf32:
        return []
    worst = max(o.relative_error or 0.0 for o in tf32)
    return [
        Finding(
            "tf32-in-float32",
            Severity.INFO,
            T,
            f"{label} runs float32 {', '.join(sorted({o.op for o in tf32}))} in TF32 (rel. error {worst:.1e})",
            detail=(
                "TensorFlow's default on Ampere and newer: inputs rounded to a 10-bit mantissa, float32 accumulation; "
                "about 7x the float32 rate on an H200 for about 1e-3 relative error. Fine for training."
            ),
            hint="Where you need full float32 (comparing with CPU results, scientific code): "
            "tf.config.experimental.enable_tensor_float_32_execution(False)",
            link="https://www.tensorflow.org/api_docs/python/tf/config/experimental/enable_tensor_float_32_execution",
        )
    ]


def _gpu_checks(facts: Facts, probe: ProbeFacts, gpu: ProbeGpu) -> list[Finding]:
    out = []
    label = f"{gpu.device} ({gpu.name})"
    if gpu.first_op_error:
        out.append(
            Finding("gpu-op-failed", Severity.ERROR, T, f"The first op on {label} failed", detail=gpu.first_op_error)
        )
        return out
    wrong = [o for o in gpu.ops if not o.ok and o.error is None]
    failed = [o for o in gpu.ops if o.error is not None]
    if wrong:
        worst = max(wrong, key=lambda o: o.relative_error or 0.0)
        out.append(
            Finding(
                "gpu-wrong-results",
                Severity.ERROR,
                T,
                f"{label} computed wrong results: {', '.join(f'{o.op}/{o.dtype}' for o in wrong)}",
                detail=f"Largest relative error {worst.relative_error:.2e} against the CPU ({worst.op}, {worst.dtype}).",
                hint="Run `tfgpu burn` to look for a failing GPU; check the driver and cooling.",
            )
        )
    cause = _dependency_fix(facts, probe)
    if failed:
        out.append(
            Finding(
                "gpu-op-failed",
                Severity.ERROR,
                T,
                f"Ops failed on {label}: {', '.join(f'{o.op}/{o.dtype}' for o in failed)}",
                detail=(f"{cause[0]}. " if cause else "") + (failed[0].error or ""),
                hint=cause[1] if cause else "",
            )
        )
    ok = [o for o in gpu.ops if o.ok]
    if ok and not wrong and not failed:
        worst_by_dtype: dict[str, float] = {}
        for o in ok:
            worst_by_dtype[o.dtype] = max(worst_by_dtype.get(o.dtype, 0.0), o.relative_error or 0.0)
        errors = ", ".join(f"{d} {e:.1e}" for d, e in worst_by_dtype.items())
        out.append(
            Finding(
                "gpu-results-match-cpu",
                Severity.OK,
                T,
                f"{label}: matmul, conv, reduction match the CPU (max rel. error {errors})",
            )
        )
        out.extend(_tf32(label, ok))
    if gpu.first_op_seconds is not None and gpu.first_op_seconds > PTX_JIT_SLOW_SECONDS:
        out.append(
            Finding(
                "gpu-first-op-slow",
                Severity.WARNING,
                T,
                f"The first op on {label} took {gpu.first_op_seconds:.0f} s",
                detail="That is the driver JIT-compiling PTX: the GPU is newer than the build's machine code.",
                hint="export CUDA_CACHE_MAXSIZE=4294967296   (later starts reuse the compiled kernels)",
            )
        )
    if gpu.xla_ok is False:
        out.append(
            Finding(
                "xla-compile-failed",
                Severity.WARNING,
                T,
                f"XLA (jit_compile=True) failed on {label}",
                detail=(f"{cause[0]}. " if cause else "") + (gpu.xla_error or ""),
                hint=cause[1] if cause else "See the ptxas/libdevice findings; without them use jit_compile=False.",
            )
        )
    elif gpu.xla_ok:
        out.append(
            Finding("xla-works", Severity.OK, T, f"XLA compiled and ran on {label} in {gpu.xla_seconds or 0:.1f} s")
        )
    out.extend(_memory(facts, gpu, label))
    return out


def _memory(facts: Facts, gpu: ProbeGpu, label: str) -> list[Finding]:
    created = [
        e
        for e in (facts.probe.log_events if facts.probe else ())
        if e.kind == "device_created" and e.library and e.library.endswith(gpu.device.split("/")[-1])
    ]
    if not created or not created[0].detail or isinstance(facts.gpus, Unavailable):
        return []
    reserved_mib = int(created[0].detail)
    index = int(gpu.device.rsplit(":", 1)[-1])
    nvml = next((g for g in facts.gpus if g.index == index), None)
    total = None if nvml is None or isinstance(nvml.memory_total_bytes, Unavailable) else nvml.memory_total_bytes
    if total and reserved_mib * 1024 * 1024 > 0.8 * total and facts.env("TF_FORCE_GPU_ALLOW_GROWTH") != "true":
        return [
            Finding(
                "tf-grabs-all-memory",
                Severity.INFO,
                T,
                f"TF reserved {reserved_mib / 1024:.0f} GiB of {label}'s {total / 1024**3:.0f} GiB at start",
                detail="By default TF maps nearly all GPU memory for its allocator; other processes on this GPU will OOM.",
                hint="export TF_FORCE_GPU_ALLOW_GROWTH=true   (or tfgpu.setup(memory='growth'))",
                link=GPU_GUIDE + "#limiting_gpu_memory_growth",
            )
        ]
    return []


def _log_findings(facts: Facts, probe: ProbeFacts) -> list[Finding]:
    """TF's refusal of its cuDNN, when the static check could not see it coming (cudnn-older-than-build says it otherwise)."""
    mismatch = _cudnn_mismatch(probe)
    if mismatch is None or older_cudnn(facts):
        return []
    event, loaded_version, built = mismatch
    return [
        Finding(
            "cudnn-runtime-mismatch",
            Severity.ERROR,
            T,
            f"TF loaded cuDNN {loaded_version} but was built with {built}",
            detail=event.text,
            hint=cudnn_fix(facts, None, built),
        )
    ]
