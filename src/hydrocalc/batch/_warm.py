"""Preloaded by the fork server of the local worker pool: its import warms the server up.

Importing this module runs :func:`hydrocalc.batch.workers.warm_up` (imports of the analysis,
the compiled routing loop loaded from numba's cache), so every worker forked from the server
starts with them in memory. The objects made so far are then frozen out of the garbage
collector (:func:`gc.freeze`): a worker's collections do not walk the libraries' objects
(nor touch, and so copy, their memory pages). Nothing else imports it.
"""

import gc

from hydrocalc.batch.workers import warm_up

warm_up()
gc.collect()
gc.freeze()
