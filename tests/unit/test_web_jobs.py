"""The worker's jobs (web/jobs.py) and the cycle collector: what a job has made is frozen at each
hand-back (the collector does not walk a big input's objects again at every collection), a new
job unfreezes it all, and a cycle the last input left is then found and freed."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from relayscope.web import jobs

T = TypeVar("T")


class _Element(SimpleNamespace):
    """The little of an element Jobs touches: its dataset, text, value and classes."""

    def __init__(self) -> None:
        super().__init__(dataset=SimpleNamespace(), textContent="", value=0, hidden=False,
                         classList=SimpleNamespace(add=lambda *_: None, remove=lambda *_: None))


def in_a_loop(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a loop of its own in a thread of its own: the browser tests in the same
    pytest process hold Playwright's loop on the main thread, where asyncio.run would refuse."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfrozen() -> Any:
    yield
    gc.unfreeze()  # what a test froze goes back to the collector


def test_a_hand_back_freezes_what_was_made_and_a_new_job_lets_the_collector_find_its_cycles(unfrozen: Any) -> None:
    work = jobs.Jobs(_Element(), _Element(), _Element(), _Element())
    work.begin("Reading…")
    left = _Cycle()  # a cycle the input's work leaves behind
    gone = weakref.ref(left)
    in_a_loop(jobs.hand_back())
    assert gc.get_freeze_count() > 0
    del left
    gc.collect()
    assert gone() is not None  # frozen: no collection walks it
    work.begin("Reading the next input…")
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None


def test_a_jobs_account_says_the_collectors_share(unfrozen: Any) -> None:
    root = _Element()
    work = jobs.Jobs(root, _Element(), _Element(), _Element())
    run = work.begin("Reading…")
    before = jobs.gc_seconds()
    cycles = [_Cycle() for _ in range(200_000)]
    del cycles
    gc.collect()  # 200,000 cycles found and freed: some milliseconds
    spent = jobs.gc_seconds() - before
    work.end(run, "done")
    parts = dict(p.split("=") for p in root.dataset.analysisParts.split())
    assert spent > 0.001 and int(parts["gc"]) == pytest.approx(spent * 1000, abs=1)


def test_a_drive_hands_the_thread_back_first_unless_its_caller_has_just_had_a_turn(unfrozen: Any) -> None:
    async def drive(fresh: bool) -> list[str]:
        work = jobs.Jobs(_Element(), _Element(), _Element(), _Element())
        run = work.begin("Reading…")
        order: list[str] = []

        def slice_of_work() -> Any:
            order.append("work")
            yield 1.0

        asyncio.get_running_loop().call_soon(order.append, "a message from the page")
        assert await work.drive(slice_of_work(), run, "Translating…", fresh=fresh)
        await asyncio.sleep(0)
        return order

    assert in_a_loop(drive(fresh=False)) == ["a message from the page", "work"]
    assert in_a_loop(drive(fresh=True)) == ["work", "a message from the page"]  # a slice just awaited


def test_a_job_whose_input_was_read_before_it_began_counts_that_read_in_its_time_and_account() -> None:
    root = _Element()
    work = jobs.Jobs(root, _Element(), _Element(), _Element())
    run = work.begin("Reading…", began=time.perf_counter() - 0.5)  # its first slice read half a second ago
    work.count("read", 0.4)
    work.end(run, "done")
    parts = dict(p.split("=") for p in root.dataset.analysisParts.split())
    assert float(root.dataset.analysisMs) >= 500 and parts["read"] == "400"
