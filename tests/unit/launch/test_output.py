"""tfgpu run's output reader: Keras's progress bar, the failure verdict, and a closed stdout."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

from tests.fakes.machines import gpu_machine, lib_dir

from tfgpu.doctor.collect import collect_facts
from tfgpu.launch.output import OutputWatch, pump
from tfgpu.launch.run import failure_verdict
from tfgpu.model.findings import Severity

LOGS = Path(__file__).parents[2] / "fixtures" / "tf_logs"
# Recorded from Keras 3.15.1 (tensorflow-cpu 2.21) through a pipe: fit(epochs=3) with its default
# progress bar (redrawn with \r and backspaces), then fit(epochs=2, verbose=2); a callback slept
# 3.2 s in the first epoch and 1.1 s in the others, as a first epoch that compiles would.
KERAS_PROGRESS = LOGS / "keras-3.15-fit-progress.txt"
NVRTC_CRASH = (
    "E0000 00:00:1764697442.718 2211 cuda_dnn.cc:463] Could not load library libnvrtc.so.12. Error: "
    "libnvrtc.so.12: cannot open shared object file: No such file or directory\n"
    "W0000 00:00:1764697442.9 2211 op_kernel.cc:1857] OP_REQUIRES failed at xla_ops.cc:602 : INTERNAL: "
    "Autotuner could not find any supported configs for HLO: %cudnn-conv-bias-activation.6\n"
    "Traceback (most recent call last):\n"
    '  File "/root/train.py", line 20, in <module>\n'
    "tensorflow.python.framework.errors_impl.InternalError: Graph execution error:\n"
)


def pumped(data: bytes, out: io.StringIO | None = None) -> tuple[OutputWatch, str]:
    read, write = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write, data), os.close(write)))
    writer.start()
    watch, sink = OutputWatch(), out or io.StringIO()
    with os.fdopen(read, "rb") as stream:
        pump(stream, sink, watch)
    writer.join()
    return watch, sink.getvalue()


def test_pump_passes_keras_redraws_through_and_reads_each_finished_epoch():
    data = KERAS_PROGRESS.read_bytes()
    watch, shown = pumped(data)
    assert shown.encode() == data  # the terminal still gets \r redraws, not one line per redraw
    assert watch.finished_epochs() == (4.0, 1.0, 1.0, 3.0, 1.0)
    assert not watch.traceback_seen


class ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_pump_keeps_reading_after_stdout_is_closed():
    watch, _ = pumped(NVRTC_CRASH.encode() * 200, ClosedPipe())
    assert watch.traceback_seen and watch.scanner.lines == 5 * 200


def test_failure_verdict_names_the_cause_from_the_output():
    watch, _ = pumped(NVRTC_CRASH.encode())
    verdict = failure_verdict(1, None, watch)
    assert verdict is not None and verdict.id == "script-failed" and verdict.severity is Severity.ERROR
    assert verdict.summary.startswith("The script failed (exit status 1): cuDNN could not load libnvrtc.so.12")
    assert "line 1:" in verdict.detail and 'eval "$(tfgpu env)"' in verdict.advice[0]


def test_failure_verdict_with_this_machines_facts_gives_the_exact_line_and_reads_them_only_on_failure(tmp_path):
    """The H200's first Keras CNN without nvidia/cuda_nvrtc/lib on the path: the line names that directory."""
    m = gpu_machine(tmp_path)
    m.environ = {**m.environ, "LD_LIBRARY_PATH": lib_dir(m, "cusolver")}  # tfgpu env's line of before 2026-12-02
    read: list[bool] = []

    def facts():
        read.append(True)
        return collect_facts(m.sources(), tfgpu_version="test")

    verdict = failure_verdict(1, None, pumped(NVRTC_CRASH.encode())[0], facts=facts)
    assert verdict is not None and verdict.advice[0].startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'cuda_nvrtc')}")
    assert failure_verdict(0, None, pumped(KERAS_PROGRESS.read_bytes())[0], facts=facts) is None
    assert read == [True]  # a run that did not fail reads nothing of the machine


def test_failure_verdict_for_signals_tracebacks_and_clean_exits():
    killed = failure_verdict(137, 9, OutputWatch())
    assert killed is not None and "killed by signal 9" in killed.summary
    caught, _ = pumped(b"Traceback (most recent call last):\nValueError: bad shape\n")
    printed = failure_verdict(0, None, caught)  # a script that printed its traceback and exited 0
    assert printed is not None and "ValueError" in printed.summary
    assert failure_verdict(0, None, pumped(KERAS_PROGRESS.read_bytes())[0]) is None


def test_a_line_without_end_is_fed_in_bounded_pieces():
    watch, _ = pumped(b"x" * 300_000)
    assert watch.scanner.lines == 5  # 64 KiB pieces, the last one at the end


def test_output_watch_keeps_the_last_exception_whole():
    # Keras 3.15's shape mismatch, as the script printed it (tensorflow-cpu 2.21)
    lines = [
        "Traceback (most recent call last):",
        '  File "shape.py", line 9, in <module>',
        "    m.fit(np.zeros((64, 784)), np.zeros(64), verbose=0)",
        "ValueError: Exception encountered when calling Sequential.call().",
        "",
        "\x1b[1mInvalid input shape for input Tensor(...). Expected shape (None, 28, 28, 1), but input has incompatible shape (32, 784)\x1b[0m",
        "",
        "Arguments received by Sequential.call():",
        "  • inputs=tf.Tensor(shape=(32, 784), dtype=float32)",
    ]
    watch = OutputWatch()
    for line in lines:
        watch.feed(line)
    assert watch.exception_text() == (
        "ValueError: Exception encountered when calling Sequential.call().\n"
        "Invalid input shape for input Tensor(...). Expected shape (None, 28, 28, 1), but input has incompatible shape (32, 784)"
    )


def test_output_watch_without_a_traceback_has_no_exception():
    watch = OutputWatch()
    for line in ("ValueError: printed by the script, not raised", "Epoch 1/1"):
        watch.feed(line)
    assert watch.exception_text() is None
