"""The batch progress report: scenarios done / total and the rate after the first chunk, no
time-remaining estimate (chunks finish after an unequal start-up)."""

from __future__ import annotations

import re

import hydrocalc.batch.workers  # noqa: F401 (batch.workers below)
from hydrocalc import batch


class _Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_rate_is_measured_from_the_first_chunk(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(batch.time, "perf_counter", clock)
    p = batch.workers._Progress(100, enabled=False)
    p.update(3, chunk=False)  # refused before any chunk ran: starts no clock
    assert p.first is None
    clock.t = 130.0  # a slow first chunk (worker start-up)
    p.update(10)
    assert p.first == (130.0, 13)
    clock.t = 132.0
    p.update(20)
    assert p.rate_text() == "10 scenarios/s after the first chunk"
    clock.t = 134.0
    p.update(20)
    # 40 scenarios in the 4 s after the first chunk, not 53 in 34 s
    assert p.first == (130.0, 13)
    assert p.done == 53
    assert p.rate_text() == "10 scenarios/s after the first chunk"


def test_tqdm_bar_shows_counts_and_rate_but_no_eta(monkeypatch, capsys):
    clock = _Clock()
    monkeypatch.setattr(batch.time, "perf_counter", clock)
    p = batch.workers._Progress(40, enabled=True)
    clock.t = 110.0
    p.update(10)
    clock.t = 115.0
    p.update(30)
    p.close()
    err = capsys.readouterr().err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "40/40 scenarios" in last
    assert "6 scenarios/s after the first chunk" in last
    assert not re.search(r"<\d", err)  # tqdm's "<remaining" estimate never appears
    assert "?" not in last


def test_disabled_progress_writes_nothing(monkeypatch, capsys):
    clock = _Clock()
    monkeypatch.setattr(batch.time, "perf_counter", clock)
    p = batch.workers._Progress(20, enabled=False)
    assert p.bar is None
    p.update(5)
    clock.t = 102.0
    p.update(15)
    p.close()
    assert p.done == 20
    assert capsys.readouterr().err == ""
