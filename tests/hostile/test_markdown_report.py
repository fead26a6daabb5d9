"""``doctor --markdown`` is safe to paste (issue 25 class 7): nothing personal or secret, nothing that renders as
HTML, an image, a link or a mention, nothing that closes its code fence; and redaction is linear in the text."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfgpu.report.markdown import code_span, markdown_text
from tfgpu.report.redaction import Redactions, redact

ME = Redactions(user="jo", host="h7.lab.example", home="/data/jo-home")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("pip index https://ci:pa/ss:w0rd@pypi.example/simple", "pa/ss:w0rd"),
        ("https://bucket.example/data.tfrecord?X-Amz-Signature=abc123def&x=1", "abc123def"),
        ("https://api.example/v1?page=2&access_token=tok987", "tok987"),
        ("https://api.example/v1?api_key=k55", "k55"),
        ("a home outside /home: /data/jo-home/venv/bin/python", "/data/jo-home"),
        ("two-letter user: /scratch/jo/run and host h7 in a prompt", "jo/"),
        ("two-letter user: /scratch/jo/run and host h7 in a prompt", "h7"),
        ("another machine's report: /home/bobby/venv, then /mnt/bobby/data", "bobby"),
        ("token ghp_" + "a" * 30 + " here", "ghp_"),
    ],
)
def test_redaction_removes(text, secret):
    assert secret not in redact(text, ME)


def test_redaction_keeps_what_is_not_personal():
    text = "https://pypi.org/simple/tensorflow/?page=2 libcudnn.so.9 sm_90 NVIDIA H200"
    assert redact(text, ME) == text


@pytest.mark.timeout(60)  # a quadratic pattern takes many minutes on these; linear ones well under a second
@pytest.mark.parametrize("fill", ["a", "a://", "ghp_", "sk-" + "-" * 10, "?token=", "/home/", "@", "a:"])
def test_redaction_is_linear_on_adversarial_text(fill):
    text = fill * (1_000_000 // len(fill))
    assert len(redact(text, ME)) > 0


def test_tf_config_keeps_only_the_tasks_type_and_index():
    from tfgpu.report.markdown import _environ_value

    value = json.dumps(
        {"cluster": {"worker": ["10.0.0.1:1"]}, "task": {"type": "worker", "index": 1, "host": "10.0.0.9"}}
    )
    assert json.loads(_environ_value("TF_CONFIG", value)) == {
        "cluster": "<redacted>",
        "task": {"type": "worker", "index": 1},
    }
    odd = json.dumps({"task": {"type": "node7.internal", "index": "node7"}})
    assert "node7" not in _environ_value("TF_CONFIG", odd)


LIVE = re.compile(r"<[A-Za-z/!]|!\[|\]\(|(?<![\\])\*|@[A-Za-z0-9]")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>![]()@*_`|&#\\ \nabcXY/:")), max_size=40))
def test_escaped_text_has_no_live_markdown(text):
    out = markdown_text(text)
    assert "\n" not in out and not LIVE.search(out.replace("&lt;", "").replace("&gt;", ""))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("`ab |\n")), min_size=1, max_size=30))
def test_a_code_span_cannot_be_closed_by_its_content(text):
    span = code_span(text)
    fence = re.match(r"`+", span).group(0)
    inner = span[len(fence) : -len(fence)]
    assert span.endswith(fence)
    assert all(len(run) != len(fence) for run in re.findall(r"`+", inner))  # only an equal run would close it
    assert "\n" not in span and re.search(r"(?<!\\)\|", span) is None
