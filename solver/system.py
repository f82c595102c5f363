"""What the machine gives this process: the cores it may run on and the memory it may still take.

Both are read from the system each time they are asked (the CPU affinity mask; the memory
available, within a cgroup's limit where there is one), so a process moved to fewer cores
or a container given less memory sees it at once. Tests replace these functions to play a
machine they are not on: callers look them up here (``system.available_memory()``) when
they call them.
"""

from __future__ import annotations

import os

from solver import config, files


def available_cores() -> int:
    """Cores this process may run on.

    Returns:
        The cores of the process's CPU affinity mask, or where the system has none, all the
            machine's cores (at least 1).
    """
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def available_memory() -> int | None:
    """Bytes this process may still take: the memory available now, within a cgroup's limit
    where there is one.

    Returns:
        The least of ``MemAvailable`` in ``/proc/meminfo`` and what is left below the limit of
            a cgroup v2 (``/sys/fs/cgroup/memory.max``); where neither can be read, the free
            physical pages; ``None`` where that cannot be read either.
    """
    def read(path: str) -> str | None:
        try:
            return files.read_text(path, config.SETTINGS_BYTES)
        except (OSError, UnicodeDecodeError):
            return None

    found = []
    meminfo = read("/proc/meminfo") or ""
    for line in meminfo.splitlines():
        if line.startswith("MemAvailable:"):
            found.append(int(line.split()[1]) * 1024)
    limit, current = read("/sys/fs/cgroup/memory.max"), read("/sys/fs/cgroup/memory.current")
    if limit and current and limit.strip().isdigit() and current.strip().isdigit():
        found.append(max(0, int(limit) - int(current)))
    if not found:
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            return None
    return min(found)
