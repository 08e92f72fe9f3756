"""Whether a process exists: :func:`pid_alive`.

Shared by the batch workers and the report's staging folders.
"""

from __future__ import annotations

import os

__all__ = ["pid_alive"]


def pid_alive(pid: int) -> bool:
    """True when a process with id ``pid`` exists on this machine.

    Signal 0 is sent: nothing is delivered. A process owned by another user counts as alive
    (``EPERM``).
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists
        return True
    return True
