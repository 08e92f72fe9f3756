"""Preloaded by the fork server of the local worker pool: its import warms the server up.

Importing this module runs :func:`hydrocalc.batch.workers.warm_up` (imports of the analysis,
the compiled routing loop loaded from numba's cache), so every worker forked from the server
starts with them in memory. The objects made so far are then frozen out of the garbage
collector (:func:`gc.freeze`): a worker's collections do not walk the libraries' objects
(nor touch, and so copy, their memory pages). The server, and so every worker it forks,
ignores SIGINT (the batch stops them). Nothing else imports it.
"""

import gc
import os
import signal
import sys
import time

# Ctrl-C reaches every process of the terminal's group: the batch stops its workers itself
# (terminate, then kill), so the server and the workers it forks ignore SIGINT (no
# traceback of a half-done import, no worker lost before the batch decides)
signal.signal(signal.SIGINT, signal.SIG_IGN)
_t = time.time()
from hydrocalc.batch.workers import warm_up  # noqa: E402

warm_up()
if os.environ.get("HYDROCALC_BATCH_TRACE", "0") not in ("", "0"):  # the batch's timeline
    print(f"[batch fork server] warm-up from {_t:.3f} to {time.time():.3f} (epoch s)",
          file=sys.stderr, flush=True)
gc.collect()
gc.freeze()
