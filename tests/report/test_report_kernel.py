"""The report kernel's namespace reset between notebooks runs no full garbage collection."""

from __future__ import annotations

import pytest

from hydrocalc.report.execute import kernels as K
from hydrocalc.report.papermill_engine import RESET_CODE

pytestmark = pytest.mark.notebooks

_BEFORE = ("import gc, os\n"
           "os.environ['HC_TEST_FULL_GC'] = str(gc.get_stats()[2]['collections'])")
_AFTER = "import gc, os"


def _full_collections_per_reset(extra_arguments: list[str]) -> int:
    """Fewest full collections counted over one reset, of three tries."""
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=K.KERNEL_NAME)
    km.start_kernel(extra_arguments=extra_arguments, env=K.kernel_env())
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        counts = []
        for _ in range(3):
            kc.execute_interactive("x = [[i] for i in range(1000)]\nx[:1]", timeout=60)
            kc.execute_interactive(_BEFORE, timeout=60)
            kc.execute_interactive(RESET_CODE, silent=True, store_history=False, timeout=60)
            reply = kc.execute_interactive(_AFTER, timeout=60, user_expressions={
                "n": "gc.get_stats()[2]['collections'] - int(os.environ['HC_TEST_FULL_GC'])"})
            counts.append(int(reply["content"]["user_expressions"]["n"]["data"]["text/plain"]))
        return min(counts)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_reset_between_notebooks_runs_no_full_collection():
    assert "--InteractiveShell.cache_size=0" in K._KERNEL_ARGS
    assert _full_collections_per_reset(list(K._KERNEL_ARGS)) == 0
    # with IPython's output cache on, the same reset collects (what the option avoids)
    with_cache = [a for a in K._KERNEL_ARGS if "cache_size" not in a]
    assert _full_collections_per_reset(with_cache) >= 1


def test_pool_keeps_one_connected_client_per_kernel_until_closed(tmp_path):
    pool = K.KernelPool(tmp_path, size=1)
    try:
        km = pool.acquire()
        kc = pool.client(km)
        assert kc is not None and kc.channels_running
        assert pool.client(km) is kc
        assert not hasattr(km, "hydrocalc_client")  # nothing set on jupyter_client's object
        pool.release(km)
    finally:
        pool.close()
    assert pool.client(km) is None


def test_fresh_kernels_have_no_kept_client(tmp_path):
    pool = K.KernelPool(tmp_path, fresh=True)
    km = pool.acquire()
    try:
        assert pool.client(km) is None
    finally:
        pool.release(km)
        pool.close()
