"""SIGTERM stops a report run the way Ctrl-C does: its cleanup runs.

Without a handler, SIGTERM ends the process at once: its kernels are orphaned and its
staging folder stays beside the report. :func:`interrupt_on_terminate` turns SIGTERM into
``KeyboardInterrupt`` while a report runs (main thread only), so the kernels are shut down,
the staging folder removed and the previous report left as it was.

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``KeyboardInterrupt("terminated")``.

    Main thread only: elsewhere, or where signals cannot be set, the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt("terminated")

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def interrupt_on_terminate(func: F) -> F:
    """Decorator: run ``func`` inside :func:`terminate_as_interrupt`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with terminate_as_interrupt():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
