import pytest
from tests.fakes.elf import write_elf

from tfgpu.system.elf import ElfError, expand_origin, read_dynamic


def test_read_dynamic_returns_soname_needed_and_deduplicated_runpath(tmp_path):
    lib = write_elf(
        tmp_path / "libx.so.1",
        soname="libx.so.1",
        needed=("libc.so.6", "libm.so.6"),
        runpath="$ORIGIN/../a:$ORIGIN/../b:$ORIGIN/../a",
    )
    info = read_dynamic(str(lib))
    assert info.soname == "libx.so.1"
    assert info.needed == ("libc.so.6", "libm.so.6")
    assert info.runpath == ("$ORIGIN/../a", "$ORIGIN/../b")
    assert info.rpath == ()


def test_read_dynamic_without_runpath(tmp_path):
    assert read_dynamic(str(write_elf(tmp_path / "liby.so", soname="liby.so"))).runpath == ()


@pytest.mark.parametrize("content", [b"", b"not an elf at all", b"\x7fELF\x02\x01\x01" + bytes(20)])
def test_read_dynamic_rejects_non_elf_and_truncated_files(tmp_path, content):
    bad = tmp_path / "bad.so"
    bad.write_bytes(content)
    with pytest.raises(ElfError):
        read_dynamic(str(bad))


def test_expand_origin_handles_both_spellings():
    assert expand_origin("${ORIGIN}/lib", "/a/b/c.so") == "/a/b/lib"
    assert expand_origin("$ORIGIN/../x", "/a/b/c.so") == "/a/x"
