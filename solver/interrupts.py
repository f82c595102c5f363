"""Signals and the processes a command starts: where a signal may raise, and what must end.

A signal's Python handler runs between two bytecodes of whatever Python code the process
is in. Most of the time that is code that can take an exception; but Numba and llvmlite
run Python code where it cannot: while a kernel compiles or loads from the cache,
callbacks from LLVM through ctypes (an exception there is printed and dropped, and the
native code goes on with a half-done result, which can crash the process), and finalisers
of LLVM objects. Nor can any finaliser (:func:`in_finalizer`): the interpreter prints an
exception raised in one and drops it. :func:`in_native_code` and :func:`in_finalizer` tell
those apart from the frame a handler is given, and :func:`alarm`, the time limit of a
decision or a start-up, never raises there: it tries again a moment later, once the code
has returned to the caller's Python code. A
handler of another signal does the same with :func:`again_later`; so do the handlers
:func:`stoppable` installs for a long command, whose Ctrl-C, SIGTERM or SIGHUP raises
:class:`Stopped`.

The processes side (:func:`become_subreaper`, :func:`end_orphans`, :func:`end_tree`):
a bot's program may leave processes that start a session of their own (``setsid``, a
double fork), out of reach of a signal to its process group. On Linux the process that
starts bots is a child subreaper, so such processes are re-parented to it rather than to
init, and ending a bot ends them too; elsewhere those calls do what they can without it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Collection, Iterator
from types import FrameType
from typing import Any, Protocol, TypeVar

from solver import config, files

NATIVE_PACKAGES = ("numba", "llvmlite")  # packages whose Python code an exception must not cross
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
RAISING_SIGNALS = STOP_SIGNALS + tuple(getattr(signal, name) for name in ("SIGALRM",) if hasattr(signal, name))
"""The signals whose handlers here raise: a stop (:func:`stoppable`), and the time limit of :func:`alarm`."""


def _native_folders() -> tuple[str, ...]:
    """The folders of the native packages loaded so far (a package not imported runs no code)."""
    folders = []
    for name in NATIVE_PACKAGES:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            folders.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(folders)


def in_native_code(frame: FrameType | None) -> bool:
    """Whether ``frame`` or any frame that led to it is Numba's or llvmlite's: a kernel
    compiling or loading, a callback from LLVM, a finaliser of an LLVM object.

    >>> import sys
    >>> in_native_code(sys._getframe())
    False
    """
    folders = _native_folders()
    while folders and frame is not None:
        if frame.f_code.co_filename.startswith(folders):
            return True
        frame = frame.f_back
    return False


def again_later(signum: int, frame: FrameType | None) -> bool:
    """For a signal handler that is about to raise: True when it may (``frame`` is not in
    native code); otherwise the same signal is sent to this process again ``config.RETRY_SECONDS``
    later, from a timer thread, while the same handler is installed, and False: the handler
    returns and raises next time.

    >>> import signal, sys
    >>> again_later(signal.SIGINT, sys._getframe())
    True
    """
    if not _must_wait(frame):
        _retrying.pop(signum, None)  # this one raises: a retry still due has nothing left to ask
        return True
    if signum in _retrying:  # one retry a signal: the same signal again meanwhile is the same request
        return False
    handler = signal.getsignal(signum)

    def again() -> None:
        try:
            del _retrying[signum]  # atomic: the end of a held() block may have sent it already
        except KeyError:
            return
        if signal.getsignal(signum) is handler:  # not once the handler is gone
            os.kill(os.getpid(), signum)

    _retrying[signum] = handler  # before the timer starts: a signal while it starts finds it pending
    timer = threading.Timer(config.RETRY_SECONDS, again)
    timer.daemon = True
    try:
        timer.start()
    except BaseException:
        _retrying.pop(signum, None)
        raise
    return False


# The signals whose handler waited (again_later), each with that handler: a timer or held()'s end sends it again.
_retrying: dict[int, Any] = {}


def _send_waiting() -> None:
    """Send again, to this thread, each signal whose handler waited for a held() block to end
    (rather than its timer a moment later: the code after the block may be quick to leave
    the handler's reach, and the signal would be lost), while that handler is still installed."""
    for signum in tuple(_retrying):
        try:
            handler = _retrying.pop(signum)
        except KeyError:
            continue
        if signal.getsignal(signum) is handler:
            signal.raise_signal(signum)


@contextlib.contextmanager
def alarm(seconds: float | None, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``error()`` in the block when it runs longer than ``seconds`` (None: no limit).

    A real-time timer signal stops the block, so only in a process's main thread;
    elsewhere the block runs to its end and the caller judges its time. The signal never
    raises inside native code (:func:`in_native_code`): there it looks again every
    ``config.RETRY_SECONDS`` and raises once the block is back in Python code of its own. A block
    that stays in compiled code without returning is not stopped (no signal can do that
    safely); it is judged late when it returns."""
    usable = bool(seconds) and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        if _must_wait(frame):
            signal.setitimer(signal.ITIMER_REAL, config.RETRY_SECONDS)
            return
        raise error()

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, float(seconds or 0))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_holding = 0  # how many held() blocks the main thread is in: the handlers here do not raise inside one


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Hold back the signals whose handlers here raise (a stop, the time limit of :func:`alarm`)
    in the block: one that comes meanwhile raises a moment after the block ends, as in native
    code, so that code which must not be cut in the middle (ending processes, a thread pool
    adding a thread) runs to its end. The main thread's signal mask holds them too where there
    is one; but another thread (a BLAS library's, say) may take a signal the main thread
    blocks, and Python still runs its handler in the main thread, so the handlers look here
    as well; such a signal is sent again as the outermost block ends. Elsewhere than in the
    main thread the block simply runs."""
    global _holding
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    masked = hasattr(signal, "pthread_sigmask")
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, RAISING_SIGNALS) if masked else set()
    _holding += 1
    try:
        yield
    finally:
        _holding -= 1
        if masked:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if not _holding:
            _send_waiting()


def in_finalizer(frame: FrameType | None) -> bool:
    """Whether ``frame`` or any frame that led to it is a finaliser: a ``__del__`` method, or
    the ``weakref`` module's code that runs ``weakref.finalize`` callbacks and the callbacks of
    weak references. The garbage collector runs them in the middle of any code; an exception
    raised in one is printed as "Exception ignored" and dropped, so it stops nothing.

    >>> import sys
    >>> in_finalizer(sys._getframe())
    False
    """
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename == weakref.__file__:
            return True
        frame = frame.f_back
    return False


def _must_wait(frame: FrameType | None) -> bool:
    """Whether a handler must not raise now: inside :func:`held`, in native code, or in a finaliser."""
    return _holding > 0 or in_native_code(frame) or in_finalizer(frame)


# --- stopping a long command: Ctrl-C, SIGTERM, SIGHUP ----------------------------------------


class Stopped(KeyboardInterrupt):
    """Ctrl-C (SIGINT), SIGTERM or SIGHUP asked a long command to stop; ``status`` is its exit status."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def status(self) -> int:
        return 128 + self.signum


_received: list[int] = []  # the signals received inside stoppable(), first first


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    if signum not in _received:
        _received.append(signum)
    if again_later(signum, frame):
        raise Stopped(signum)


def check_stopped() -> None:
    """Raise :class:`Stopped` when a signal came inside :func:`stoppable` but its exception was
    lost: raised in a callback from compiled code (Numba's compiler calls back into Python
    through ctypes), which prints it and carries on. Long loops call this between steps."""
    if _received:
        raise Stopped(_received[0])


def _quiet_lost_stops(hook: Callable[[sys.UnraisableHookArgs], object]) -> Callable[[sys.UnraisableHookArgs], None]:
    """An unraisable-exception hook that passes over a :class:`Stopped` lost in a callback (it
    is raised again at the next step, by :func:`check_stopped`) and hands anything else to ``hook``."""

    def quiet(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, Stopped):
            hook(unraisable)

    return quiet


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """Inside, SIGINT, SIGTERM and SIGHUP (a closed terminal) raise :class:`Stopped` (never in
    a kernel that compiles or loads: there a moment later, ``solver.interrupts``), even
    where the shell started the command with SIGINT ignored (a background job); SIGHUP stays
    ignored where it was (``nohup``). The handlers are put back after. A stop
    that lands in a callback from compiled code is not printed there as an ignored exception:
    :func:`check_stopped` raises it at the next step."""
    _received.clear()
    previous = {signum: signal.signal(signum, _raise_stopped) for signum in STOP_SIGNALS
                if signum != getattr(signal, "SIGHUP", None) or signal.getsignal(signum) is not signal.SIG_IGN}
    hook = sys.unraisablehook
    sys.unraisablehook = _quiet_lost_stops(hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _received.clear()


# --- processes that leave their process group ------------------------------------------------


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux): the descendants of its children that
    lose their parent are re-parented to it, not to init, so that :func:`end_orphans` can
    end them. True when it is one; False elsewhere, where they cannot be followed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _process_stat(pid: int | str) -> str:
    """The line ``/proc/PID/stat`` holds (a process's name in it may be any bytes)."""
    return files.read_bytes(f"/proc/{pid}/stat", config.LINE_BYTES).decode("utf-8", "replace")


def _parents() -> dict[int, int]:
    """Every process's parent, from Linux ``/proc`` (empty where there is none)."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            found[int(name)] = int(_process_stat(name).rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, children first (Linux ``/proc``; none elsewhere).

    >>> import os
    >>> os.getpid() in descendants(os.getppid()) or not os.path.isdir("/proc")
    True
    """
    parents = _parents()
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = [pid]
    while todo:
        below = children.get(todo.pop(0), [])
        found += [p for p in below if p not in found]
        todo += below
    return found


class _HasPid(Protocol):
    pid: int


Child = TypeVar("Child", bound=_HasPid)
_OWN: set[int] = set()  # children started in a session of their own, still kept by whoever started them
_OWN_LOCK = threading.Lock()


def start_own(start: Callable[[], Child]) -> Child:
    """``start()``, which starts a child in a session of its own and returns it (with its
    ``pid``), kept from the moment it exists: :func:`end_orphans` leaves it alone until
    :func:`disown`."""
    with _OWN_LOCK:
        child = start()
        _OWN.add(child.pid)
    return child


def disown(pid: int) -> None:
    """``pid`` has ended (and been reaped) or is no longer kept."""
    with _OWN_LOCK:
        _OWN.discard(pid)


def end_orphans(keep: Collection[int] = ()) -> list[int]:
    """End the children of this process that run in a session other than its own, save those
    it keeps (:func:`start_own`) and those in ``keep``, with everything below them, and reap them:
    what the processes it started (bots, in sessions of their own) left behind, re-parented
    here (:func:`become_subreaper`). The pids ended are returned."""
    try:
        own = os.getsid(0)
    except OSError:
        return []
    me = os.getpid()
    with _OWN_LOCK:
        kept = set(keep) | _OWN
        children = [child for child, parent in _parents().items() if parent == me and child not in kept]
    orphans = []
    for pid in children:
        try:
            if os.getsid(pid) != own:
                orphans.append(pid)
        except OSError:
            continue
    end_tree(orphans)
    for pid in orphans:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    return orphans


def _kill(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def end_tree(pids: list[int], grace: float = 0.0) -> None:
    """End the processes ``pids`` and every process below them (those that started a
    session of their own too): with a ``grace`` period, SIGTERM first and up to ``grace``
    seconds for them to exit; then SIGKILL for every one still running."""
    everyone = list(dict.fromkeys(p for pid in pids for p in (pid, *descendants(pid))))
    if grace > 0:
        for pid in everyone:
            _kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_running(pid) for pid in everyone):
            time.sleep(0.02)
        everyone += [p for pid in list(everyone) for p in descendants(pid) if p not in everyone]
    for pid in everyone:
        _kill(pid, signal.SIGSTOP)  # frozen first, so that none starts another meanwhile
    everyone += [p for pid in list(everyone) for p in descendants(pid) if p not in everyone]
    for pid in everyone:
        _kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    """Whether a process runs (a zombie, ended but not reaped, does not)."""
    try:
        return _process_stat(pid).rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
