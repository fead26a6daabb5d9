"""Issue 25, class 3: every number an option takes is checked when parsed (exit 2), never passed on as nan,
inf, zero, a negative, an overflow or a non-ASCII digit. ``burn --temp-limit nan`` switched the thermal
stop off: a GPU at 99 °C burned to PASS."""

from __future__ import annotations

import pytest
from tests.fakes.cli import run_cli

from tfgpu.cli.exit_status import ExitStatus
from tfgpu.configure.options import make_options
from tfgpu.model.errors import DiagnosticError

BAD = [
    ("burn", "--temp-limit", "nan"),
    ("burn", "--temp-limit", "inf"),
    ("burn", "--temp-limit", "-5"),
    ("burn", "--temp-limit", "1000"),
    ("doctor", "--probe-timeout", "nan"),
    ("doctor", "--probe-timeout", "inf"),
    ("doctor", "--probe-timeout", "0"),
    ("monitor", "--duration", "nan"),
    ("monitor", "--duration", "-5"),
    ("monitor", "--watch", "0"),
    ("monitor", "--watch", str(2**40)),
    ("monitor", "--watch", "١٢"),
    ("tune", "x.py", "--batch-size", "0"),
    ("tune", "x.py", "--batch-size", "-3"),
    ("bench", "--timeout", "nan"),
    ("run", "--workers", "0", "--", "true"),
    ("run", "--workers", "100000", "--", "true"),
    ("run", "--split", "0", "--", "true"),
    ("run", "--gpus", "²", "--", "true"),
    ("run", "--memory", "99999999999999999999TiB", "--", "true"),
    ("run", "--memory", "٣GiB", "--", "true"),
]


@pytest.mark.parametrize("argv", BAD, ids=" ".join)
def test_a_number_an_option_cannot_mean_is_a_usage_error(argv):
    result = run_cli(*argv)
    assert result.exit_status == ExitStatus.USAGE, (argv, result.stdout, result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("xla", [0, 1, 2.0])
def test_setup_xla_takes_booleans_not_numbers_that_equal_them(xla):
    # setup(xla=0) turned TF's JIT off (0 == False) but left Keras's automatic XLA on
    with pytest.raises(DiagnosticError):
        make_options(xla=xla)
