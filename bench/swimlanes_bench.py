"""The swimlanes on a big run: the page's longest task while it draws, zooms and pans.

Usage (after `make site`):

    .venv/bin/python bench/swimlanes_bench.py [--mb 600] [--base-mb 1]

The input is the real stream-json corpus (as bench/web_scale.py makes it) repeated up to --mb
megabytes, each repeat with its tool_use and message ids made its own (`toolu_r7_...`), so that
the run has as many spans as its size suggests (repeated ids would fold into one span each):
600 MB gives ~10^5 tool spans and as many marks. It is opened in the app (file input), and once
it is shown, while a PerformanceObserver records every long task (> 50 ms, the Long Tasks API):
20 wheel steps of zoom in where the pointer is, 10 sideways wheel steps (pan), `+` / `-` keys on
a focused track, and "Fit". The same moves run on a --base-mb input in the same browser: the
baseline. Printed: spans drawn, the longest task during the moves for each input, and the
slowest frame's draw time (`data-draw-ms`, swimlanes.mjs); the ratio of the big to the base.
`--compare N` instead times one zoom step of N spans drawn as SVG rects, as divs and on a canvas
(the measurement the canvas was chosen by). `--folded` instead draws the folded time axis against
the same run to scale: a real session with two sub-agents (ef958aa1, carried in tests/fixtures)
repeated up to --folded-mb megabytes, each repeat 8 hours after the one before (so each adds its
own idle gaps and one more: hundreds of breaks) with its ids made its own, opened as a folder;
20 frames at Fit (the whole run drawn: like for like) and the same moves, with the axis folded
and to scale, twice each, alternating, in one page. Printed: breaks, tracks, spans, the median
frame at Fit and while moving, the slowest, and the ratios folded / to scale.
Not asserted anywhere: figures for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "bench"))
from _inputs import stream_json_dir
from browser import launch
from serve import serving

OUT = ROOT / "bench" / "out"
LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push({start: e.startTime, duration: e.duration});
}).observe({type: "longtask", buffered: true});
"""


def make_input(mb: int) -> Path:
    path = OUT / f"unique-ids-{mb}mb.jsonl"
    if path.is_file():
        return path
    files = sorted(stream_json_dir().glob("*.jsonl"))
    one = b"".join(f.read_bytes().rstrip(b"\n") + b"\n" for f in files)
    OUT.mkdir(parents=True, exist_ok=True)
    written, k = 0, 0
    with path.open("wb") as out:
        while written < mb * 2**20:
            chunk = one.replace(b'"toolu_', b'"toolu_r%d_' % k).replace(b'"msg_', b'"msg_r%d_' % k)
            out.write(chunk)
            written += len(chunk)
            k += 1
    return path


SESSION = next((ROOT / "tests" / "fixtures" / "real").rglob("ef958aa1-*.jsonl"))
UUID_KEYS = ("uuid", "parentUuid", "logicalParentUuid", "sourceToolAssistantUUID")


def _shifted(line: bytes, k: int, agents: list[bytes], hours: int) -> bytes:
    """One record of repeat k: its ids its own, its time ``k * hours`` later."""
    line = line.replace(b'"toolu_', b'"toolu_r%d_' % k).replace(b'"msg_', b'"msg_r%d_' % k)
    for a in agents:
        line = line.replace(a, a + b"r%d" % k)
    rec = json.loads(line)
    if not isinstance(rec, dict):
        return line
    for key in UUID_KEYS:
        if isinstance(rec.get(key), str):
            rec[key] += f"-r{k}"
    stamp = rec.get("timestamp")
    if isinstance(stamp, str):
        at = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(hours=k * hours)
        rec["timestamp"] = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode()


def make_session(mb: int, hours: int = 8) -> Path:
    """A session's folder: SESSION and its sub-agents' files repeated up to ``mb`` MB, each repeat
    ``hours`` after the one before, with ids of its own (its sub-agents' files too)."""
    folder = OUT / f"folded-{mb}mb"
    main = folder / SESSION.name
    if main.is_file():
        return folder
    subs = sorted((SESSION.parent / SESSION.stem / "subagents").glob("agent-*.jsonl"))
    agents = [f.stem.removeprefix("agent-").encode() for f in subs]
    (folder / SESSION.stem / "subagents").mkdir(parents=True, exist_ok=True)
    lines = SESSION.read_bytes().splitlines()
    written, k = 0, 0
    with main.open("wb") as out:
        while written < mb * 2**20:
            for line in lines:
                if line.strip():
                    chunk = _shifted(line, k, agents, hours) + b"\n"
                    out.write(chunk)
                    written += len(chunk)
            for f, a in zip(subs, agents, strict=True):
                sub = folder / SESSION.stem / "subagents" / f"agent-{a.decode()}r{k}.jsonl"
                body = b"".join(_shifted(x, k, agents, hours) + b"\n" for x in f.read_bytes().splitlines() if x.strip())
                sub.write_bytes(body)
                written += len(body)
            k += 1
    return folder


def counts(page) -> tuple[int, int]:
    """The spans and marks the page's tracks hold (swimlanes.mjs's counts)."""
    got = page.evaluate("() => import('./static/js/swimlanes.mjs').then((m) => m.counts())")
    return got["spans"], got["marks"]


def moves(page) -> dict[str, Any]:
    """Zoom, pan, keys and fit; the longest task and the slowest frame meanwhile."""
    page.evaluate("window.__longTasks = []")
    draws: list[float] = []
    slow: list[str] = []
    lane = page.locator("[data-testid=swimlane-track] .sl-lane").first
    box = lane.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + 4)
    worst_draw = 0.0
    for _ in range(20):
        page.mouse.wheel(0, -240)
        page.wait_for_timeout(30)
        draws.append(float(page.get_attribute("[data-testid=swimlanes]", "data-draw-ms") or 0))
        slow.append(page.get_attribute("[data-testid=swimlanes]", "data-draw-slowest") or "")
        worst_draw = max(worst_draw, draws[-1])
    for _ in range(10):
        page.mouse.wheel(400, 0)
        page.wait_for_timeout(30)
        draws.append(float(page.get_attribute("[data-testid=swimlanes]", "data-draw-ms") or 0))
        slow.append(page.get_attribute("[data-testid=swimlanes]", "data-draw-slowest") or "")
        worst_draw = max(worst_draw, draws[-1])
    lane.focus()
    for key in ["-"] * 8 + ["+"] * 4:
        page.keyboard.press(key)
        page.wait_for_timeout(30)
        draws.append(float(page.get_attribute("[data-testid=swimlanes]", "data-draw-ms") or 0))
        slow.append(page.get_attribute("[data-testid=swimlanes]", "data-draw-slowest") or "")
        worst_draw = max(worst_draw, draws[-1])
    page.locator("[data-testid=swimlane-fit]").click()
    page.wait_for_timeout(200)
    worst_draw = max(worst_draw, float(page.get_attribute("[data-testid=swimlanes]", "data-draw-ms") or 0))
    tasks = page.evaluate("window.__longTasks")
    return {"longest_task_ms": max((t["duration"] for t in tasks), default=0.0), "long_tasks": len(tasks),
            "tasks_ms": [round(t["duration"]) for t in tasks], "slowest_draw_ms": worst_draw, "draws_ms": draws,
            "slowest_track": slow}


# The choice of drawing: the same zoom step (every visible span moved and resized) as SVG rects,
# as absolutely placed divs, and on a canvas, for N spans, in a blank page; each timed through the
# frame it forces (style, layout and paint for the elements: a rAF after the change, then the
# next frame; the canvas's fillRects, then the same wait).
COMPARE = """async (n) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const xs = Array.from({length: n}, (_, i) => [(i * 7919) % 100000, 1 + (i % 50)]);
  const out = {};
  document.body.innerHTML = "";
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", "1200"); svg.setAttribute("height", "200");
  document.body.append(svg);
  const rects = xs.map(([x, w], i) => {
    const r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    r.setAttribute("y", String((i % 10) * 16)); r.setAttribute("height", "14");
    svg.append(r); return r;
  });
  const box = document.createElement("div");
  box.style.cssText = "position:relative;width:1200px;height:200px;overflow:hidden";
  document.body.append(box);
  const divs = xs.map(([x, w], i) => {
    const d = document.createElement("div");
    d.style.cssText = `position:absolute;top:${(i % 10) * 16}px;height:14px;background:#08c`;
    box.append(d); return d;
  });
  const canvas = document.createElement("canvas"); canvas.width = 1200; canvas.height = 200;
  document.body.append(canvas);
  const ctx = canvas.getContext("2d");
  const timeIt = async (apply) => {
    let worst = 0;
    for (let z = 1; z <= 8; z++) {
      const k = 1200 / (100000 / z);
      const t = performance.now();
      apply(k);
      await frame();
      worst = Math.max(worst, performance.now() - t);
    }
    return worst;
  };
  out.svg_ms = await timeIt((k) => xs.forEach(([x, w], i) => {
    rects[i].setAttribute("x", String(x * k)); rects[i].setAttribute("width", String(Math.max(1, w * k)));
  }));
  out.dom_ms = await timeIt((k) => xs.forEach(([x, w], i) => {
    divs[i].style.left = `${x * k}px`; divs[i].style.width = `${Math.max(1, w * k)}px`;
  }));
  out.canvas_ms = await timeIt((k) => {
    ctx.clearRect(0, 0, 1200, 200); ctx.fillStyle = "#08c";
    xs.forEach(([x, w], i) => ctx.fillRect(x * k, (i % 10) * 16, Math.max(1, w * k), 14));
  });
  out.frame_ms = await timeIt(() => {});
  return out;
}"""


def compare(browser, n: int) -> dict[str, float]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto("about:blank")
    out = page.evaluate(COMPARE, n)
    page.close()
    return out


def opened(browser, url: str, path: Path, picker: str = "file-input") -> Any:
    """A page of the app with ``path`` opened (a file, or a folder through the folder picker) and
    its swimlanes drawn; its long tasks recorded from the start."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(LONG_TASKS)
    page.goto(url)
    page.wait_for_selector("html[data-app-state=ready]", state="attached", timeout=600_000)
    page.set_input_files(f'[data-testid="{picker}"]', str(path))
    page.wait_for_selector("html[data-app-state=done]", state="attached", timeout=3_600_000)
    page.wait_for_selector("[data-testid=swimlanes][data-view]", state="attached", timeout=600_000)
    return page


def run(browser, url: str, path: Path) -> dict[str, Any]:
    page = opened(browser, url, path)
    spans, marks = counts(page)
    tracks = page.locator("[data-testid=swimlane-track]").count()
    load_ms = float(page.get_attribute("[data-testid=swimlanes]", "data-load-ms") or 0)
    build_ms = float(page.get_attribute("[data-testid=swimlanes]", "data-build-ms") or 0)
    out = {"mb": path.stat().st_size / 2**20, "spans": spans, "marks": marks, "tracks": tracks, "load_ms": load_ms, "build_ms": build_ms,
           **moves(page)}
    page.close()
    return out


def fit_frames(page, n: int = 20) -> list[float]:
    """The frame's drawing at Fit (the whole run in view: every span drawn, folded or not), n times:
    the like-for-like comparison (the moves' views differ: zoomed in to scale, the pointer's place
    is most likely idle)."""
    lane = page.locator("[data-testid=swimlane-track] .sl-lane").first
    lane.focus()
    draws = []
    for _ in range(n):
        page.keyboard.press("0")
        page.wait_for_timeout(30)
        draws.append(float(page.get_attribute("[data-testid=swimlanes]", "data-draw-ms") or 0))
    return draws


def folded(browser, url: str, folder: Path) -> dict[str, Any]:
    """The same moves on one run, its axis folded and to scale, twice each, alternating."""
    page = opened(browser, url, folder, "folder-input")
    section = "[data-testid=swimlanes]"
    out: dict[str, Any] = {
        "mb": sum(f.stat().st_size for f in folder.rglob("*.jsonl")) / 2**20,
        "breaks": int(page.get_attribute(section, "data-breaks") or 0),
        "tracks": page.locator("[data-testid=swimlane-track]").count(),
        "spans": counts(page)[0],
        "folded": [], "to_scale": []}
    for _ in range(2):
        for mode in ("folded", "to_scale"):
            want = "on" if mode == "folded" else "off"
            if page.get_attribute(section, "data-fold") != want:
                page.locator("[data-testid=swimlane-fold]").click()
                page.wait_for_selector(f'{section}[data-fold="{want}"]', state="attached")
            page.locator("[data-testid=swimlane-fit]").click()
            page.wait_for_timeout(200)
            out[mode].append({"fit_ms": fit_frames(page), **moves(page)})
    page.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=600)
    ap.add_argument("--base-mb", type=int, default=1)
    ap.add_argument("--compare", type=int, default=0, metavar="N",
                    help="only time one zoom step of N spans as SVG, DOM and canvas, and stop")
    ap.add_argument("--folded", action="store_true", help="only draw a long session folded and to scale, and stop")
    ap.add_argument("--folded-mb", type=int, default=20)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    if args.folded:
        folder = make_session(args.folded_mb)
        with serving(ROOT) as url, sync_playwright() as playwright:
            browser = launch(playwright)
            r = folded(browser, url, folder)
            browser.close()
        med = {m: [statistics.median(x["draws_ms"]) for x in r[m]] for m in ("folded", "to_scale")}
        fit = {m: [statistics.median(x["fit_ms"]) for x in r[m]] for m in ("folded", "to_scale")}
        fit_ratios = [f / max(u, 0.05) for f, u in zip(fit["folded"], fit["to_scale"], strict=True)]
        worst = {m: max(x["slowest_draw_ms"] for x in r[m]) for m in ("folded", "to_scale")}
        tasks = {m: max(x["longest_task_ms"] for x in r[m]) for m in ("folded", "to_scale")}
        ratios = [f / max(u, 0.05) for f, u in zip(med["folded"], med["to_scale"], strict=True)]
        print(json.dumps({m: [{k: v for k, v in x.items() if k != "draws_ms"} for x in r[m]]
                          for m in ("folded", "to_scale")}, indent=1))
        print(f"{r['mb']:.0f} MB folder: {r['tracks']} tracks, {r['spans']} spans, {r['breaks']} breaks folded; "
              f"at Fit, median frame folded {' / '.join(f'{x:.1f}' for x in fit['folded'])} ms, to scale "
              f"{' / '.join(f'{x:.1f}' for x in fit['to_scale'])} ms (ratio folded / to scale "
              f"{' / '.join(f'{x:.2f}' for x in fit_ratios)}); zooming and panning, median frame folded {' / '.join(f'{x:.1f}' for x in med['folded'])} ms, to scale "
              f"{' / '.join(f'{x:.1f}' for x in med['to_scale'])} ms (ratio folded / to scale "
              f"{' / '.join(f'{x:.2f}' for x in ratios)}); slowest frame {worst['folded']:.1f} ms folded, "
              f"{worst['to_scale']:.1f} ms to scale; longest page task {tasks['folded']:.0f} / {tasks['to_scale']:.0f} ms")
        return

    if args.compare:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for n in (1000, args.compare):
                r = compare(browser, n)
                print(f"{n} spans, worst zoom step (ms, an empty frame is {r['frame_ms']:.1f}): svg {r['svg_ms']:.1f}, "
                      f"dom {r['dom_ms']:.1f}, canvas {r['canvas_ms']:.1f}")
            browser.close()
        return

    big, base = make_input(args.mb), make_input(args.base_mb)
    with serving(ROOT) as url, sync_playwright() as playwright:
        browser = launch(playwright)
        b = run(browser, url, base)
        r = run(browser, url, big)
        browser.close()
    print(json.dumps({"base": b, "big": r}, indent=1))
    print(f"{r['mb']:.0f} MB: {r['tracks']} tracks, {r['spans']:.0f} spans, {r['marks']:.0f} marks (built in the "
          f"worker in {r['build_ms']:.0f} ms, set up on the page in {r['load_ms']:.0f} ms); while zooming and panning the longest "
          f"page task {r['longest_task_ms']:.0f} ms ({r['long_tasks']} over 50 ms), slowest frame "
          f"{r['slowest_draw_ms']:.1f} ms, median frame {statistics.median(r['draws_ms']):.1f} ms; {b['mb']:.0f} MB "
          f"baseline: {b['longest_task_ms']:.0f} ms, {b['slowest_draw_ms']:.1f} ms, median "
          f"{statistics.median(b['draws_ms']):.1f} ms (median frame ratio "
          f"{statistics.median(r['draws_ms']) / max(statistics.median(b['draws_ms']), 0.05):.1f}x)")


if __name__ == "__main__":
    main()
