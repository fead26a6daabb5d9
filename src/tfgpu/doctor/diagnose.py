"""Run every check over the Facts and order the findings worst first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from tfgpu.doctor.checks.collectors import check_collectors
from tfgpu.doctor.checks.cuda import check_cuda_libraries
from tfgpu.doctor.checks.driver import check_container_image, check_driver, check_driver_for_cuda
from tfgpu.doctor.checks.environ import check_environ
from tfgpu.doctor.checks.gpus import check_gpus
from tfgpu.doctor.checks.probe import check_probe
from tfgpu.doctor.checks.tensorflow import check_python, check_tensorflow
from tfgpu.knowledge.fixes import for_windows
from tfgpu.model.facts import Facts, HostFacts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.results import Diagnosis

Check = Callable[[Facts], list[Finding]]

CHECKS: tuple[Check, ...] = (
    check_collectors,
    check_driver,
    check_driver_for_cuda,
    check_container_image,
    check_gpus,
    check_cuda_libraries,
    check_tensorflow,
    check_python,
    check_environ,
    check_probe,
)

_SECTION_ORDER = {s: i for i, s in enumerate(Section)}


def diagnose(facts: Facts, checks: Sequence[Check] = CHECKS) -> Diagnosis:
    """Apply the checks; a check that raises becomes a ``doctor-check-failed`` error, not a crash.

    On Windows each hint's ``export NAME=value`` is written for cmd and PowerShell.
    """
    findings: list[Finding] = []
    for check in checks:
        try:
            findings.extend(check(facts))
        except Exception as exc:  # noqa: BLE001 - a bug in one check must not hide the others
            findings.append(
                Finding(
                    "doctor-check-failed",
                    Severity.ERROR,
                    Section.ENVIRONMENT,
                    f"The check {check.__name__} failed on these facts",
                    detail=f"{type(exc).__name__}: {exc}",
                    hint="This is a tfgpu bug: please report it with the output of `tfgpu doctor --markdown`.",
                )
            )
    if isinstance(facts.host, HostFacts) and facts.host.os_name == "Windows":  # no `export` in cmd or PowerShell
        findings = [replace(f, hint=for_windows(f.hint)) for f in findings]
    ordered = sorted(findings, key=lambda f: (_SECTION_ORDER[f.section], -f.severity.rank))
    return Diagnosis(facts, tuple(ordered))
