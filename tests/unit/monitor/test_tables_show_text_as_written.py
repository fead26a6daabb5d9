"""Strings from the machine enter tables as text: rich would read ``[link=…]`` in a plain str cell as markup.

A process's command line (any user on the machine chooses it) is shown in ``tfgpu monitor``'s table,
and a recorded command in ``tfgpu cache``'s: neither may forge a link, hide itself or style the output.
"""

from __future__ import annotations

import io

from tfgpu.model.samples import GpuSample
from tfgpu.model.xla_cache import CacheListing, CacheMode, CacheRun, CacheUse
from tfgpu.report.monitor import samples_table
from tfgpu.report.text import make_console
from tfgpu.report.xla_cache import cache_listing

FORGED = "python [link=http://evil.example]train.py[/link] [bold]x\x1b]0;t\x07"


def shown(renderable) -> str:
    out = io.StringIO()
    make_console(out, color=True, width=400).print(renderable)
    return out.getvalue()


def test_a_process_line_is_shown_as_written_in_the_monitor_table():
    sample = GpuSample(0.0, 0, 50.0, 10.0, 2**30, 2**33, 40.0, 100.0, 300.0, 1500.0, 1980.0, 2619.0)
    text = shown(samples_table([sample], {0: "NVIDIA [red]H200"}, {0: [FORGED]}))
    assert "\x1b]8;" not in text and "\x1b]0;" not in text and "evil.example" in text
    assert "[link=http://evil.example]train.py[/link] [bold]x\\x1b]0;t\\x07" in text and "NVIDIA [red]H200" in text


def test_a_recorded_command_is_shown_as_written_in_the_cache_listing():
    run = CacheRun(finished_unix=0.0, digest="abc", command=FORGED, use=CacheUse(compiled=1, loaded=0))
    listing = CacheListing(root="/tmp/[i]cache", mode=CacheMode.ON, limit_bytes=2**30, directories=(), runs=(run,))
    text = shown(cache_listing(listing, now=0.0))
    assert "\x1b]8;" not in text and "[link=http://evil.example]train.py[/link]" in text and "/tmp/[i]cache" in text
