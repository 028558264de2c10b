"""jobs: the page's work, one job at a time, a slice at a time.

A job is a load, a re-run with another strategy, the audit, building the search index or a
watched file's growth: a model generator (``Workspace.load``, ``rerun``, ...) that :meth:`Jobs.drive`
runs to its end, yielding to the worker's event loop (``await asyncio.sleep(0)``) whenever
SLICE_BUDGET has passed, so that the progress bar moves and what the page sent meanwhile (a newer
input, a strategy change) is taken. A newer job cancels a running one: :meth:`begin` hands out
run ids, and a job whose id is no longer ``run`` stops at its next slice. The page's own thread
never waits for any of it.

``<html data-app-state>`` says where we are: ``ready`` (nothing loaded), ``analyzing``, ``done``,
``error``; the page turns it to ``analyzing`` in the very event that starts work (static/js/
ui.mjs) and the handler here confirms it, so a script that waits for ``done`` after acting never
sees the previous ``done``. ``data-analysis-ms`` is the last job's time, ``data-longest-slice-ms``
its longest stretch without a yield, ``data-analysis-parts`` where its time went (``read=12
copy=40 translate=700 ... yields=30``, ms: the parts the job's code timed with :meth:`Jobs.timed`,
each without the time it spent handing the thread back, which is ``yields``; ``gc``: the cycle
collector's share of the whole, counted inside the other parts).

The cycle collector (``gc``): an input's relays, lines and lookups live as long as the input is
shown, and a 600 MB one is millions of objects that every collection of the oldest generation walks
again (over a second of a 600 MB load and its swimlanes, in Pyodide). So a job's work, at each
hand-back (:func:`hand_back`), is frozen (``gc.freeze``: moved out of the collector's walks; freed as
ever when nothing refers to it), and a new job unfreezes it all (:meth:`Jobs.begin`): a cycle the
last input left is found by the collector's next walks, not kept for good.

A job that fails, and a handler that raises (``safe``: a bug of ours), end in :meth:`fail`:
the status says why, ``failed`` tells whoever shows it (the notice box, the timeline), "error".

Must not: know what a job does (the controllers start them and draw their results), or run
longer than a slice without a yield.
"""

from __future__ import annotations

import asyncio
import gc
import time
import traceback
from collections.abc import Callable, Coroutine, Generator, Iterator
from typing import Any, ParamSpec, TypeVar

from .dom import Element, show
from .remote import WINDOW as window
from .view import Signal

P = ParamSpec("P")
R = TypeVar("R")

SLICE_BUDGET = 0.035  # s of work between two yields (the worker then takes what the page sent meanwhile)
_GC = [0.0, 0.0]  # the cycle collector's time so far (s), and when its running collection began


def _gc_timed(phase: str, _info: dict[str, int]) -> None:
    if phase == "start":
        _GC[1] = time.perf_counter()
    else:
        _GC[0] += time.perf_counter() - _GC[1]


gc.callbacks.append(_gc_timed)


def gc_seconds() -> float:
    """The cycle collector's time since the worker started (a part's share is a difference)."""
    return _GC[0]


async def hand_back() -> None:
    """Give the worker's event loop a turn (what the page sent meanwhile is taken), the work's
    objects made so far frozen first (the module doc: the cycle collector)."""
    gc.freeze()
    await asyncio.sleep(0)


def parts_ms(parts: dict[str, float]) -> str:
    """Time by part (s) as the page's ``data-*-parts`` say it: ``read=12 translate=700 yields=30`` (ms)."""
    return " ".join(f"{k}={v * 1000:.0f}" for k, v in parts.items())


class Clock:
    """Work after a job has ended, sliced as a job is (the swimlanes' build): where its time went,
    by part, the hand-backs apart (``<html data-lanes-parts>``), and whether the slice running has
    had its budget."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = {}
        self.mark = self.slice = time.perf_counter()
        self.longest = 0.0
        self.gc = gc_seconds()

    def lap(self, part: str) -> None:
        """The time since the last lap (or hand-back) was ``part``'s."""
        now = time.perf_counter()
        self.parts[part] = self.parts.get(part, 0.0) + now - self.mark
        self.mark = now

    def due(self) -> bool:
        return time.perf_counter() - self.slice > SLICE_BUDGET

    async def hand_back(self, part: str) -> None:
        """End the slice (its time since the last lap is ``part``'s) and give the loop a turn."""
        self.lap(part)
        self.longest = max(self.longest, self.mark - self.slice)
        await hand_back()
        now = time.perf_counter()
        self.parts["yields"] = self.parts.get("yields", 0.0) + now - self.mark
        self.mark = self.slice = now

    def account(self) -> str:
        """``timeline=812 positions=40 ... gc=120 longest=52`` (ms)."""
        self.longest = max(self.longest, time.perf_counter() - self.slice)
        return parts_ms({**self.parts, "gc": gc_seconds() - self.gc, "longest": self.longest})


class Jobs:
    def __init__(self, root: Element, status: Element, progress: Element, timeline: Element) -> None:
        self.root, self._status, self._bar, self._timeline = root, status, progress, timeline
        self.failed: Signal[[str]] = Signal()  # a job or a handler failed: why, in the reader's words
        self.run = 0  # the id of the newest job
        self.busy = False  # a job is running: rows, steps and clicks wait
        self._t_start = 0.0
        self._longest = 0.0  # the running job's longest stretch without a yield (s)
        self._parts: dict[str, float] = {}  # the running job's time by part (s)
        self._yielded = 0.0  # the running job's time in yields (s)
        self._gc_start = 0.0  # gc_seconds() when the running job began
        self._tasks: set[asyncio.Future[None]] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}

    # -- the page's state hook and status line ---------------------------------------------------

    def set_state(self, state: str) -> None:
        self.root.dataset.appState = state

    def status(self, text: str) -> None:
        self._status.textContent = text

    def fail(self, text: str) -> None:
        """A job failed, or the input cannot be read: say so, and "error"."""
        self.stop()
        self.status(text)
        self.failed.emit(text)
        self.set_state("error")

    def stop(self) -> None:
        """No job runs any more (it failed): the progress bar goes."""
        self.busy = False
        show(self._bar, False)

    # -- tasks and timers ----------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task of the worker's event loop; whatever it raises is shown."""
        task = asyncio.ensure_future(self._guarded(coro))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, coro: Coroutine[Any, Any, None]) -> None:
        try:
            await coro
        except MemoryError:  # WebAssembly memory stops at 4 GB, lines and relay events included
            traceback.print_exc()
            self.fail("Out of memory: the page can use at most 4 GB, and this input with its relay events "
                       "needs more. The command line has no such limit: relayscope translate FILE.")
        except Exception as exc:
            self._bug(exc)

    def start_work(self, coro: Coroutine[Any, Any, None]) -> None:
        """Start a job that needs the workspace: flip to analyzing now, run it as a task."""
        self.set_state("analyzing")
        self.spawn(coro)

    def safe(self, handler: Callable[P, R]) -> Callable[P, R | None]:
        """``handler``, with any exception (a bug of ours) shown on the page."""

        def run(*args: P.args, **kwargs: P.kwargs) -> R | None:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:
                self._bug(exc)
                return None

        return run

    def _bug(self, exc: Exception) -> None:
        """An exception nothing expected (a bug of ours): said on the page, traceback on the console."""
        traceback.print_exc()
        self.fail(f"Something went wrong: {exc!r}")

    def later(self, key: str, ms: int, fn: Callable[[], object]) -> None:
        """Run ``fn`` once, ``ms`` after the last call with the same key (debounce)."""
        self.cancel(key)
        self._timers[key] = window.setTimeout(self.safe(lambda: (self._timers.pop(key, None), fn())), ms)

    def cancel(self, key: str) -> None:
        """Forget the pending ``later`` of ``key``, if any."""
        old = self._timers.pop(key, None)
        if old is not None:
            window.clearTimeout(old)

    # -- one job ---------------------------------------------------------------------------------------

    def begin(self, label: str, began: float | None = None) -> int:
        """A new job: any older one stops at its next slice. Returns its run id. ``began``: when
        its work began, if before now (``time.perf_counter``; its input's first slice read)."""
        self.run += 1
        self.busy = True
        self._t_start = time.perf_counter() if began is None else began
        self._parts, self._yielded, self._longest = {}, 0.0, 0.0
        self._gc_start = gc_seconds()
        gc.unfreeze()  # the last input's objects are walked again: its cycles are found
        self.root.dataset.longestSliceMs = "0"
        self.set_state("analyzing")
        self.status(label)
        self._bar.value = 0
        show(self._bar)
        self._timeline.classList.add("busy")
        return self.run

    def end(self, run: int, label: str) -> None:
        """Job ``run`` is done (nothing, if a newer one took over): its time, and "done"."""
        if run != self.run:
            return
        self.busy = False
        show(self._bar, False)
        self._timeline.classList.remove("busy")
        ms = (time.perf_counter() - self._t_start) * 1000
        self.root.dataset.analysisMs = f"{ms:.0f}"
        self.root.dataset.analysisParts = parts_ms({**self._parts, "yields": self._yielded,
                                                    "gc": gc_seconds() - self._gc_start})
        self.status(f"{label} ({ms / 1000:.2f} s)")
        self.set_state("done")

    @property
    def started(self) -> float:
        """When the running job began (``time.perf_counter``)."""
        return self._t_start

    def elapsed_ms(self) -> float:
        """Time since the running job began."""
        return (time.perf_counter() - self._t_start) * 1000

    def mark(self) -> tuple[float, float]:
        """Now, for :meth:`timed`: the clock and the time yielded so far."""
        return time.perf_counter(), self._yielded

    def count(self, part: str, seconds: float) -> None:
        """Count ``seconds`` in ``part`` of the running job's time (work timed before it began)."""
        self._parts[part] = self._parts.get(part, 0.0) + seconds

    def timed(self, part: str, since: tuple[float, float]) -> tuple[float, float]:
        """Count the time from ``since`` (a :meth:`mark`) to now in ``part`` of the running
        job's time, less what was yielded meanwhile; returns a mark of now, for the next part."""
        now = self.mark()
        self._parts[part] = self._parts.get(part, 0.0) + (now[0] - since[0]) - (now[1] - since[1])
        return now

    async def _yield(self) -> None:
        start = time.perf_counter()
        await hand_back()
        self._yielded += time.perf_counter() - start

    async def drive(self, gen: Iterator[float], run: int, label: str, *, fresh: bool = False) -> bool:
        """Run a model generator to its end a slice at a time. False if a newer run took over.
        <html data-longest-slice-ms> keeps the longest stretch without a yield to the browser.
        ``fresh``: the caller has just come back from the event loop (it awaited a slice of the
        file: a turn of its own, the page's messages taken, its ops sent), so the work begins at
        once (its objects frozen, as a hand-back does); else whatever ran before ends its task
        first. A hand-back costs about 1 ms in Pyodide, and a 50 MB load drives 14 slices."""
        bar = self._bar
        if fresh:
            gc.freeze()  # what was made so far, out of the collector's walks, as at a hand-back
        else:
            await self._yield()  # whatever ran before us ends its task here
        mark = time.perf_counter()
        for progress in gen:
            if run != self.run:
                _close(gen)
                return False
            now = time.perf_counter()
            if now - mark > SLICE_BUDGET:
                bar.value = progress
                self.status(f"{label} {progress:.0%}")
                self.note_slice(now - mark)
                await self._yield()
                if run != self.run:
                    _close(gen)
                    return False
                mark = time.perf_counter()
        self.note_slice(time.perf_counter() - mark)
        return True

    def note_slice(self, seconds: float) -> None:
        if seconds > self._longest:
            self._longest = seconds
            self.root.dataset.longestSliceMs = f"{seconds * 1000:.0f}"


def _close(gen: Iterator[float]) -> None:
    """A generator given up on runs its ``finally`` now, not when it is collected."""
    if isinstance(gen, Generator):
        gen.close()
