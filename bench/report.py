"""Write a run: bench/results/<timestamp>.json and bench/results/latest.md (Markdown table)."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def _num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "–"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def _triple(s: dict) -> str:
    return f"{_num(s['min'])} / **{_num(s['median'])}** / {_num(s['max'])}"


def markdown(run: dict) -> str:
    m = run["machine"]
    lines = [
        f"# Benchmarks — {run['started']} ({run['mode']} mode)",
        "",
        (
            f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB RAM, {m['os']}. "
            f"{m['chromium']}; Python {m['python']}; Pyodide {m['pyodide']}; "
            f"PyScript {m['pyscript']}."
        ),
        "",
        (
            f"Command: `{run['command']}` — {run['seconds']:.0f} s. Each cell is min / "
            "**median** / max over the repetitions (n). Ratio = subject / baseline per "
            "interleaved pair; the goal is judged on the median ratio."
        ),
        "",
        "| figure | unit | n | subject | baseline | ratio | goal | met | notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for f in run["figures"]:
        met = {True: "yes", False: "**no**", None: "–"}[f["met"]]
        lines.append(
            f"| {f['name']} | {f['unit']} | {f['subject']['n']} | {_triple(f['subject'])} | "
            f"{_triple(f['baseline'])} | {_triple(f['ratio'])} | {f['goal']} | {met} | "
            f"{f['note'].replace('|', '/')} |"
        )
    if run.get("skipped"):
        lines += ["", "Not measured in this run:", ""]
        lines += [f"- {name}: {why}" for name, why in run["skipped"].items()]
    if run.get("details"):
        lines += [
            "",
            "Details:",
            "",
            "```json",
            json.dumps(run["details"], indent=1, ensure_ascii=False),
            "```",
        ]
    return "\n".join(lines) + "\n"


def write(run: dict) -> tuple[Path, Path]:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = run["started"].replace(":", "").replace("-", "")
    json_path = RESULTS / f"{stamp}-{run['mode']}.json"
    json_path.write_text(json.dumps(run, indent=1, ensure_ascii=False))
    md_path = RESULTS / "latest.md"
    md_path.write_text(markdown(run))
    return json_path, md_path
