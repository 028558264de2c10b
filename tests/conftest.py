"""Shared test set-up: import the package from the source tree; hypothesis profiles.

Property tests run under the ``ci`` profile unless ``HYPOTHESIS_PROFILE`` says otherwise:
derandomized (the same examples on every run, so ``make test`` never fails by chance) and
without an example database (a clone behaves like any other). ``make fuzz`` selects ``fuzz``:
random examples, many of them, and the deadline still off (CI machines are slow and shared)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "py") not in sys.path:
    sys.path.insert(0, str(ROOT / "py"))

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", derandomize=True, database=None, deadline=None, max_examples=100,
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.register_profile("fuzz", derandomize=False, database=None, deadline=None,
                          max_examples=int(os.environ.get("FUZZ_EXAMPLES", "3000")),
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# `make test` runs the unit tests on pytest-xdist's workers, which inherit the controller's C
# environment, where GNU readline (loaded by the controller) has written COLUMNS=80 and LINES=24
# when they were unset. The CLI sizes its tables by COLUMNS: a worker keeps only what the
# controller's own environment had, so a test's output is the same on a worker as in a plain run.
_TERMINAL = ("COLUMNS", "LINES")
if "PYTEST_XDIST_WORKER" not in os.environ:
    os.environ["RELAYSCOPE_TEST_TERMINAL"] = ",".join(k for k in _TERMINAL if k in os.environ)
else:
    for _name in set(_TERMINAL) - set(os.environ.get("RELAYSCOPE_TEST_TERMINAL", "").split(",")):
        os.environ.pop(_name, None)
