"""Issue 18's attacks through the real CLI in child processes: each ends in a clear status, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.fakes.cli import tfgpu_child

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


def shell(command: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


PY = f"{sys.executable} -m tfgpu"


def test_a_closed_or_missing_stdout_and_an_ascii_locale_are_not_failures():
    static = tfgpu_child("doctor", "--static").returncode  # 3 on this CPU machine: its own verdict
    head = shell(f"{PY} doctor --static | head -1; echo ${{PIPESTATUS[0]}} >&2")
    assert head.stderr.strip().splitlines()[-1] == str(static) and "Traceback" not in head.stderr
    closed = shell(f"{PY} doctor --static >&-")
    assert closed.returncode == static and "Traceback" not in closed.stderr
    ascii_run = tfgpu_child("doctor", "--static", env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert ascii_run.returncode == static and "UnicodeEncodeError" not in ascii_run.stderr


def test_run_piped_into_head_keeps_the_childs_status_and_does_not_hang():
    child = f"{sys.executable} -c \"import sys\nfor i in range(300000): print('line', i)\nsys.exit(3)\""
    result = shell(f"{PY} run -- {child} | head -1; echo ${{PIPESTATUS[0]}} >&2", timeout=60)  # a hang fails here
    assert result.stdout == "line 0\n" and result.stderr.strip().splitlines()[-1] == "3"
    assert "BrokenPipeError" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "--memory", "bogus", "--", "true"), "memory='bogus' is not valid"),
        (("run", "--", "/etc/passwd"), "cannot run /etc/passwd"),
        (("run", "--split", str(2**40), "--", "true"), "--split: '" + str(2**40) + "': give a whole number"),
    ],
)
def test_bad_run_arguments_are_usage_errors(args, message):
    result = tfgpu_child(*args)
    assert result.returncode == 2 and message in result.stderr and "internal error" not in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_to_run_ends_the_command_and_its_grandchildren(tmp_path, sig):
    pidfile = tmp_path / "grandchild.pid"
    script = f"sleep 300 & echo $! > {pidfile}; wait"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tfgpu", "run", "--", "bash", "-c", script],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.1)
    grandchild = int(pidfile.read_text())
    proc.send_signal(sig)
    proc.wait(timeout=30)
    time.sleep(0.2)
    try:
        os.kill(grandchild, 0)
        state = Path(f"/proc/{grandchild}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        state = "gone"
    assert state in ("gone", "Z"), f"the grandchild {grandchild} still runs ({state})"


def saved_report(tmp_path: Path, change) -> str:
    doc = json.loads((EXAMPLES / "h200-doctor-fixed.json").read_text())
    change(doc)
    path = tmp_path / "report.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_doctor_from_refuses_huge_deep_and_overflowing_reports_quickly(tmp_path):
    def huge(doc):
        doc["facts"]["gpus"][0]["name"] = "X" * 20_000_000

    def overflowing(doc):
        doc["facts"]["gpus"][0]["memory_total_bytes"] = int("9" * 4000)

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "a").mkdir()
    for path in (saved_report(tmp_path / "a", huge), str(deep)):
        result = tfgpu_child("doctor", "--from", path)  # the suite's per-test timeout bounds a parser that hangs
        assert result.returncode == 2 and "internal error" not in result.stderr
    (tmp_path / "b").mkdir()
    result = tfgpu_child("doctor", "--from", saved_report(tmp_path / "b", overflowing))
    assert result.returncode == 2 and "64 bits" in result.stderr


def test_escape_sequences_from_a_report_or_a_log_never_reach_the_terminal(tmp_path):
    evil = "H200\x1b]0;owned\x07\x1b[2J\x1b]8;;http://evil\x1b\\link\x9b31m\u202e"

    def poisoned(doc):
        doc["facts"]["gpus"][0]["name"] = evil
        doc["facts"]["driver"]["driver_version"] = evil

    report = saved_report(tmp_path, poisoned)
    # Shown as an escape: ``\x1b`` on the terminal, JSON's ``\u001b`` in the Markdown report's facts.
    for fmt, shown in (((), "\\x1b]0;owned"), (("--markdown",), "\\u001b]0;owned")):
        out = tfgpu_child("doctor", "--from", report, *fmt)
        assert "\x1b" not in out.stdout and "\x9b" not in out.stdout and "\u202e" not in out.stdout
        assert shown in out.stdout
    log = tmp_path / "evil.log"
    log.write_text(f"E0000 00:00:1 2 cuda_dnn.cc:1] Could not load library libnvrtc.so.12. Error: {evil}\n")
    explained = tfgpu_child("explain", "--no-facts", str(log))
    assert explained.returncode == 3 and "\x1b" not in explained.stdout and "\x9b" not in explained.stdout


def test_markdown_redacts_url_credentials_tf_config_and_the_short_host_name(tmp_path):
    def leaky(doc):
        doc["facts"]["environ"] = [
            ["TF_DATA_URL", "https://alice:s3cret@data.example/train"],
            ["TF_CONFIG", json.dumps({"cluster": {"worker": ["10.1.2.3:2222", "node7:2222"]}, "task": {"index": 1}})],
        ]
        doc["facts"]["host"]["python_executable"] = "/srv/node7/venv/bin/python"

    report = saved_report(tmp_path, leaky)
    env = {**os.environ}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import socket, sys; socket.gethostname = lambda: 'node7.cluster.local'; "
            "from tfgpu.cli.main import main; sys.exit(main(sys.argv[1:]))",
            "doctor",
            "--from",
            report,
            "--markdown",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    ).stdout
    assert "s3cret" not in out and "alice" not in out and "<credentials>@data.example" in out
    assert "10.1.2.3" not in out and "node7" not in out and '\\"index\\": 1' in out


def test_explain_run_streams_and_returns_the_commands_failure(tmp_path):
    big = "head -c 50000000 /dev/zero | tr '\\0' 'a'; echo; exit 5"
    measure = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.exit(r.returncode)\n"
    )
    command = [sys.executable, "-m", "tfgpu", "explain", "--no-facts", "--run", "--", "bash", "-c", big]
    result = subprocess.run([sys.executable, "-c", measure, *command], capture_output=True, text=True, timeout=300)
    assert result.returncode == 5 and int(result.stdout) < 200_000  # KiB: 50 MB of output went through, not kept


def test_a_utf16_log_and_an_error_after_thousands_of_redraws_are_read(tmp_path):
    line = "E0000 00:00:1 2 cuda_dnn.cc:1] Could not load library libnvrtc.so.12. Error: no such file\r\n"
    utf16 = tmp_path / "powershell.log"
    utf16.write_bytes(line.encode("utf-16"))
    assert "cudnn-nvrtc-not-loaded" in tfgpu_child("explain", "--no-facts", "--json", str(utf16)).stdout
    redraws = tmp_path / "progress.log"
    redraws.write_text("".join(f"\r{i}/3000 [====>....] - loss: 0.1" for i in range(3000)) + "\r" + line)
    assert "cudnn-nvrtc-not-loaded" in tfgpu_child("explain", "--no-facts", "--json", str(redraws)).stdout
