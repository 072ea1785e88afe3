"""Output paths, checked before the work, and write errors that name the path and the reason.

Every command that writes (the ``simulate`` and ``session`` datasets, the ``tournament`` dataset
and chart, the ``probe-calls`` file, the studies' results) checks its outputs with these
functions before it plays a deal, and so does the Python API, so that a path that cannot be
written fails at once rather than after the work:

- ``check_directory``: a dataset directory. It exists and files can be created in it, or it can
  be created: its nearest existing ancestor is a directory in which files can be created (a path
  under a regular file, in ``/proc`` or on a read-only file system is refused).
- ``check_file``: an output file. Its parent directory exists and files can be created in it; the
  path is not a directory; an existing file is replaced only if this same command wrote it
  (``owner``: a marker the command stores in its files, read back by ``written_by``), never a
  file dokosim did not write (another dataset's ``manifest.json``, a photo).

A bad path raises ``OutputError`` (a ``ValueError``: bad usage, exit 2 on the command line). A
write that fails during the run (disk full, the directory removed) raises ``WriteFailed`` (an
``OSError``: exit 1), whose message is one line naming the path and the reason. Files are
written under a temporary name and renamed (``replace_atomically``), so what was written before
stays whole. Light imports only: the command line imports this before the kernels.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

MARKER_KEY = "dokosim"
"""The key of the marker dokosim stores in the files it writes (Parquet key-value metadata,
a PNG text chunk): a JSON object whose ``command`` names the command that wrote the file."""
PROBES_OWNER = "probe-calls"  # the command named in a probes file's marker: --out replaces only such a file


class OutputError(ValueError):
    """An output path that cannot be used: the message names the option, the path and why."""


class WriteFailed(OSError):
    """Writing an output failed during a run; ``str()`` is one line naming the path and the reason."""

    def __init__(self, path, reason: str, code: int | None = None):
        super().__init__(code, reason, str(path))

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"

    def __reduce__(self):  # pickled intact from a Dask worker to the client
        return (type(self), (self.filename, self.strerror, self.errno))


_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def os_error_code(exc: BaseException) -> int | None:
    """The errno of an OSError, or of the '(os error N)' a Rust writer (polars) puts in its message."""
    if isinstance(exc, OSError) and exc.errno:
        return exc.errno
    match = _OS_ERROR.search(str(exc))
    return int(match.group(1)) if match else None


def reason(exc: BaseException) -> str:
    """The reason of an error for a one-line message: the system's text for its errno
    (``strerror``), else the first line of its message."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    code = os_error_code(exc)
    if code is not None:
        return os.strerror(code)
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def write_failed(exc: BaseException, path) -> WriteFailed:
    """``exc`` (an OSError, or a Parquet writer's error carrying one) as a WriteFailed naming ``path``."""
    if isinstance(exc, WriteFailed):
        return exc
    return WriteFailed(path, reason(exc), os_error_code(exc))


@contextmanager
def writing(path):
    """Around a write of ``path``: an OSError, or a writer's error that carries an OS error
    ('(os error N)', as polars reports a full disk), becomes WriteFailed naming ``path``."""
    try:
        yield
    except WriteFailed:
        raise
    except OSError as exc:
        raise write_failed(exc, path) from None
    except Exception as exc:
        if os_error_code(exc) is None:
            raise
        raise write_failed(exc, path) from None


def _stat(path: Path, option: str):
    """os.stat of ``path``, None when nothing is there; OutputError for a path that cannot be
    looked at (too long, a loop of links, no permission on a parent)."""
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OutputError(f"{option} {str(path)!r}: {reason(exc)}") from None


def _nearest_existing(path: Path, option: str) -> tuple[Path, os.stat_result]:
    """The nearest ancestor of ``path`` (or ``path`` itself) that exists, and its stat."""
    for candidate in (path, *path.parents):
        st = _stat(candidate, option)
        if st is not None:
            return candidate, st
    raise OutputError(f"{option} {str(path)!r}: no part of this path exists")  # not even '/'


def probe_writable(directory: Path) -> str | None:
    """None if a file can be created in ``directory`` (tried: created and removed at once), else
    the reason. A real try, because permission bits say nothing for root, ``/proc`` or a
    read-only mount."""
    probe = directory / f".dokosim-probe-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        return reason(exc)
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return None


def check_directory(path, option: str = "--out") -> Path:
    """Check a dataset directory before the work: an existing directory dokosim can create files
    in, or a new one that can be created. Returns it as a Path; OutputError otherwise."""
    path = Path(path).expanduser()
    existing, st = _nearest_existing(path.absolute(), option)
    if existing == path.absolute() and not _is_dir(st):
        raise OutputError(f"{option} {str(path)!r} is a file, not a directory; give a directory")
    if not _is_dir(st):
        raise OutputError(f"{option} {str(path)!r} is under {str(existing)!r}, which is a file, not a "
                          f"directory")
    why = probe_writable(existing)
    if why is not None:
        where = "in it" if existing == path.absolute() else f"in {str(existing)!r}"
        raise OutputError(f"{option} {str(path)!r}: cannot create files {where} ({why})")
    return path


def check_file(path, option: str, owner: str) -> Path:
    """Check an output file before the work: not a directory, its parent an existing directory
    dokosim can create files in, and, if the file exists, written by the command ``owner``
    (``written_by``); OutputError otherwise. Returns it as a Path."""
    path = Path(path).expanduser()
    st = _stat(path, option)
    if st is not None and _is_dir(st):
        raise OutputError(f"{option} {str(path)!r} is a directory; give a file name")
    parent = path.absolute().parent
    pst = _stat(parent, option)
    if pst is None:
        existing, est = _nearest_existing(parent, option)
        if not _is_dir(est):
            raise OutputError(f"{option} {str(path)!r} is under {str(existing)!r}, which is a file, "
                              f"not a directory")
        raise OutputError(f"{option} {str(path)!r}: the directory {str(parent)!r} does not exist")
    if not _is_dir(pst):
        raise OutputError(f"{option} {str(path)!r} is under {str(parent)!r}, which is a file, not a directory")
    why = probe_writable(parent)
    if why is not None:
        raise OutputError(f"{option} {str(path)!r}: cannot create files in {str(parent)!r} ({why})")
    if st is not None and written_by(path) != owner:
        raise OutputError(f"{option} {str(path)!r} exists and was not written by dokosim {owner}; "
                          f"give a new file name (or remove that file)")
    return path


def _is_dir(st: os.stat_result) -> bool:
    import stat
    return stat.S_ISDIR(st.st_mode)


def marker(command: str) -> str:
    """The marker value dokosim stores in a file written by ``command``."""
    from ..version import __version__
    return json.dumps({"command": command, "dokosim_version": __version__})


def written_by(path) -> str | None:
    """The dokosim command that wrote the file ``path`` (its marker), None for any other file."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            head = f.read(8)
        if head == b"\x89PNG\r\n\x1a\n":
            text = _png_text(path).get(MARKER_KEY)
        elif head[:4] == b"PAR1":
            import pyarrow.parquet as pq
            meta = pq.read_metadata(path).metadata or {}  # the file's key-value metadata
            raw = meta.get(MARKER_KEY.encode())
            text = raw.decode() if raw is not None else None
        else:
            return None
        command = json.loads(text)["command"] if text else None
    except (OSError, ValueError, KeyError, TypeError, ImportError):  # unreadable, damaged, not
        # ours (pyarrow's errors are OSError or ValueError): in every case not a file to replace
        return None
    return command if isinstance(command, str) else None


def _png_text(path: Path) -> dict[str, str]:
    """The tEXt chunks of a PNG file (keyword -> text), read up to the image data."""
    out = {}
    with open(path, "rb") as f:
        f.read(8)
        while True:
            header = f.read(8)
            if len(header) < 8:
                break
            length, kind = int.from_bytes(header[:4], "big"), header[4:]
            if kind in (b"IDAT", b"IEND"):
                break
            data = f.read(length)
            f.read(4)  # CRC
            if kind == b"tEXt" and b"\0" in data:
                key, _, value = data.partition(b"\0")
                out[key.decode("latin-1")] = value.decode("latin-1")
    return out


@contextmanager
def deferred_interrupt():
    """Hold Ctrl-C (SIGINT) back until the block is done, then raise it as usual.

    polars' Parquet writer (its streaming engine) polls for Ctrl-C and, when it sees one, aborts
    its writer threads with a Rust panic that prints a backtrace (``__POLARS_ABORT_KEYBOARD_INTERRUPT``)
    and raises KeyboardInterrupt twice. With this handler in place the writer finishes its file and
    the KeyboardInterrupt comes once, after it. Only in the main thread (the only one Python
    delivers signals to); elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        if callable(previous):
            previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt


def python_handles_ctrl_c() -> None:
    """Make Python's SIGINT handler the process's only one again, dropping polars' (a no-op outside
    the main thread; call it once polars is imported, before polars runs in a second thread).

    polars, when imported, registers a low-level SIGINT handler (signal-hook) that chains to the
    one installed before it. While it is in place a Ctrl-C makes every polars call then running,
    in any thread, abort with a Rust panic (``__POLARS_ABORT_KEYBOARD_INTERRUPT``): the run's chunk
    writer would lose the file it is writing and print a backtrace. The command line installs
    ``interrupt_once`` before its lazy import of polars, so the hook sits in front of it. Setting
    Python's handler again replaces the hook at the C level; Ctrl-C then reaches the main thread
    only, as a KeyboardInterrupt, and the writer finishes its chunk."""
    if threading.current_thread() is not threading.main_thread():
        return
    handler = signal.getsignal(signal.SIGINT)
    if handler is not None:  # None: a handler not installed from Python, left alone
        signal.signal(signal.SIGINT, handler)


def _first_interrupt(signum, frame):
    """The SIGINT handler of ``interrupt_once``: ignore every later Ctrl-C, raise this one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


@contextmanager
def interrupt_once(restore: bool = True):
    """Within the block, the first Ctrl-C raises KeyboardInterrupt as usual and every later one is
    ignored: the stopping that the first one starts (workers ended, the chunk being written
    finished and entered in the ledger, the resume hint, the exit) cannot be cut short by a second
    one, wherever that lands (before this, a second Ctrl-C 0.3 s after the first could land in a
    cleanup and leave it half done).

    Only where Ctrl-C has Python's default handler, in the main thread; elsewhere (a caller's own
    handler, Ctrl-C ignored, an enclosing ``interrupt_once``) the block runs as it is. On leaving
    the block the handler before it is restored, unless ``restore`` is False and a Ctrl-C came:
    a process that ends with the block then ignores Ctrl-C to its last instruction."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    previous = signal.signal(signal.SIGINT, _first_interrupt)
    try:
        yield
    finally:
        if restore or signal.getsignal(signal.SIGINT) is _first_interrupt:
            signal.signal(signal.SIGINT, previous)


def temporary_name(final: Path) -> Path:
    """A temporary name beside ``final``, unique across hosts sharing the directory and retries."""
    return final.with_name(f"{final.name}.{socket.gethostname()}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def replace_atomically(final, write) -> Path:
    """Call ``write(tmp)`` to write a temporary file beside ``final``, then rename it to ``final``:
    readers see the old file or the whole new one, never a part. On any error (an OSError becomes
    WriteFailed naming ``final``) or Ctrl-C the temporary file is removed."""
    final = Path(final)
    tmp = temporary_name(final)
    try:
        with writing(final):
            write(tmp)
            os.replace(tmp, final)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise
    return final

