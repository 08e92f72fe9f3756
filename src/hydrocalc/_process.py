"""Processes: whether one exists (:func:`pid_alive`), a child that dies with its parent
(:func:`die_with_parent`); shared by the batch workers and the report's staging folders and
figure workers."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["die_with_parent", "pid_alive"]


def die_with_parent(parent_pid: int) -> bool:
    """Ask the kernel to kill this process when its parent dies (Linux ``PR_SET_PDEATHSIG``).

    A parent killed with SIGKILL (or SIGTERM without a handler) cannot stop its worker
    processes itself; with this, the kernel does. Exits at once if the parent is already
    gone. Returns True when the request was applied (False elsewhere than Linux).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1  # <sys/prctl.h>
        if libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    # the parent died before the request: follow it now
    if os.getppid() == 1 or not pid_alive(parent_pid):
        os._exit(1)
    return True


def pid_alive(pid: int) -> bool:
    """True when a process with id ``pid`` exists on this machine (signal 0 is sent: nothing
    is delivered). A process owned by another user counts as alive (``EPERM``)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists
        return True
    return True
