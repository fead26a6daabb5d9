import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfgpu.explain.reader import MAX_LINE_BYTES, LogReader, NotALogError


def read(data: bytes) -> list[str]:
    return list(LogReader(io.BytesIO(data)).lines())


def test_crlf_invalid_utf8_and_a_missing_final_newline():
    assert read(b"a\r\n\xff\xfeb\nlast") == ["a\r", "\ufffd\ufffdb", "last"]


def test_empty_and_binary_inputs_are_refused():
    with pytest.raises(NotALogError, match="empty"):
        read(b"")
    with pytest.raises(NotALogError, match="binary"):
        read(b"\x7fELF\x02\x01\x01" + bytes(4000))


def test_very_long_line_is_cut_and_the_next_line_kept():
    lines = read(b"x" * (3 * MAX_LINE_BYTES) + b"\nnext\n")
    assert len(lines[0]) == MAX_LINE_BYTES and lines[-1] == "next"


TEXT = st.text(alphabet=st.characters(blacklist_characters="\n\x00", blacklist_categories=("Cs",)), max_size=50)


@given(st.lists(TEXT, min_size=1, max_size=50), st.integers(1, 64))
def test_lines_survive_any_chunking(lines, chunk):
    data = "\n".join(lines).encode()
    if not data:
        return
    reader = LogReader(io.BytesIO(data), chunk_bytes=chunk)
    expected = "\n".join(lines).split("\n")
    if expected[-1] == "":  # a final newline ends the last line; it does not start another
        expected.pop()
    assert list(reader.lines()) == expected
    assert reader.bytes_read == len(data)


def test_a_gzipped_log_is_read_as_its_text_and_damaged_data_ends_it():
    import gzip

    text = b"line one\nline two\n" * 3
    assert read(gzip.compress(text)) == ["line one", "line two"] * 3
    cut = gzip.compress(b"kept line\n" * 5000)[:200]  # a log copied while it was being written
    assert read(cut)[:1] == ["kept line"]
    with pytest.raises(NotALogError):
        read(b"\x1f\x8b" + b"not gzip at all")
