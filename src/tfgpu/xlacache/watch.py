"""Which cached programs a run loads: Linux inotify on the key's directory, read in a thread.

TF loads a program by opening its file (``TryToReadSerializedEntry`` in
tensorflow/compiler/jit/device_executable_persistor.h) and writes a new one after compiling; the
new ones are seen by comparing the directory before and after, the loads only by their opens.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import struct
import threading
from pathlib import Path
from types import TracebackType

IN_OPEN = 0x00000020
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
_EVENT = struct.Struct("iIII")
POLL_SECONDS = 0.2


class OpenWatch:
    """``with OpenWatch(dir) as watch: ...`` then ``watch.opened()``: the names opened meanwhile, or None.

    None means the opens could not be watched (not Linux, no inotify, no such directory).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._names: set[str] = set()
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> OpenWatch:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:
                return self
            if libc.inotify_add_watch(fd, os.fsencode(self.directory), IN_OPEN) < 0:
                os.close(fd)
                return self
        except (OSError, AttributeError):
            return self
        self._fd = fd
        self._thread = threading.Thread(target=self._read, name="tfgpu-xla-cache-watch", daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        assert self._fd is not None
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], POLL_SECONDS)
            if ready:
                self._drain()

    def _drain(self) -> None:
        assert self._fd is not None
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                _wd, _mask, _cookie, length = _EVENT.unpack_from(data, offset)
                raw = data[offset + _EVENT.size : offset + _EVENT.size + length]
                offset += _EVENT.size + length
                name = raw.split(b"\0", 1)[0]
                if name:
                    with self._lock:
                        self._names.add(os.fsdecode(name))

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * POLL_SECONDS + 1)
        if self._fd is not None:
            self._drain()
            with contextlib.suppress(OSError):
                os.close(self._fd)

    def opened(self) -> set[str] | None:
        """The file names opened while watched so far, None when they could not be watched."""
        if self._fd is None:
            return None
        with self._lock:
            return set(self._names)
