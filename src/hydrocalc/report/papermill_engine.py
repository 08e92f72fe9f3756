"""A Papermill engine that runs several notebooks in one warm kernel (``PooledKernelEngine``).

Registered through Papermill's documented entry point (``papermill.engine`` in
``pyproject.toml``) under :data:`ENGINE_NAME`. Papermill loads every registered engine while
``papermill.engines`` is being imported, so the class is made on first access (a module
``__getattr__``), from Papermill's engine classes then available, and this module imports
nothing at import time.

The engine is Papermill's nbclient engine, run in a kernel the caller started (``km=``).
Before each notebook the kernel's user namespace is reset (:data:`RESET_CODE`), so no
variable crosses from one notebook to the next; imported modules stay loaded, which is the
point: the imports and the site's analysis (cached per process by
:func:`hydrocalc.report.sections.context`) are paid once per kernel instead of once per
notebook. ``kc=`` is a client of that kernel already connected; without it a client is
connected for this notebook and stopped after it. Without ``km`` it is Papermill's own
engine (a fresh kernel per notebook).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENGINE_NAME", "RESET_CODE", "PooledKernelEngine"]  # noqa: F822 (made on access)

ENGINE_NAME = "hydrocalc-pooled"
#: Run before each notebook: the user namespace is cleared (``InteractiveShell.reset``);
#: imported modules stay loaded.
RESET_CODE = "get_ipython().reset(new_session=True)"

_MADE: dict[str, type] = {}


def _make_engine() -> type:
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine
    from papermill.utils import merge_kwargs, remove_args

    class PooledKernelEngine(NBClientEngine):
        """Papermill's nbclient engine in a warm kernel (see the module docstring)."""

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False,
                                     stdout_file=None, stderr_file=None, start_timeout=60,
                                     execution_timeout=None, km=None, kc=None, **kwargs):
            """Execute the notebook of ``nb_man`` in kernel ``km``, its namespace reset."""
            if km is None:
                return super().execute_managed_notebook(
                    nb_man, kernel_name, log_output=log_output, stdout_file=stdout_file,
                    stderr_file=stderr_file, start_timeout=start_timeout,
                    execution_timeout=execution_timeout, **kwargs)
            kwargs = remove_args(["input_path", "timeout", "startup_timeout"], **kwargs)
            final = merge_kwargs(kwargs, timeout=execution_timeout,
                                 startup_timeout=start_timeout, kernel_name=kernel_name,
                                 log_output=log_output, stdout_file=stdout_file,
                                 stderr_file=stderr_file)
            client = PapermillNotebookClient(nb_man, km=km, **final)
            # a new client waits about 0.2 s for its IOPub subscription: the caller's is
            # reused
            if kc is not None:
                client.kc = kc
            else:
                client.start_new_kernel_client()
            try:
                reply = client.wait_for_reply(
                    client.kc.execute(RESET_CODE, silent=True, store_history=False))
                if reply is None or reply["content"].get("status") != "ok":
                    raise RuntimeError("the kernel could not be reset between notebooks")
                return client.execute()
            finally:
                if kc is None:
                    client.kc.stop_channels()

    PooledKernelEngine.__module__ = __name__
    return PooledKernelEngine


def __getattr__(name: str) -> Any:
    if name != "PooledKernelEngine":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name not in _MADE:
        made = _make_engine()  # may load the entry point again, re-entering here
        _MADE.setdefault(name, made)
    return _MADE[name]
