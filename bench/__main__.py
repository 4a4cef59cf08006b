"""`python -m bench [--quick | --smoke] [load] [--only NAME ...]`: run, then write the results."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
import traceback
from datetime import UTC, datetime

from bench import (
    backend_benches,
    history_bench,
    lighthouse_bench,
    live_bench,
    machine,
    oauth_bench,
    people_bench,
    report,
    scale_bench,
    search_bench,
    transfer_bench,
)
from bench.plan import PLANS

SERVER = {
    "ingress": backend_benches.ingress,
    "tools": backend_benches.tools,
    "server-memory": backend_benches.server_memory,
    "load": backend_benches.steady_load,
    "search": search_bench.search,
    "live-streams": live_bench.live_streams,
    "history": history_bench.history,
    "people": people_bench.people,
    "transfer": transfer_bench.transfer,
    "oauth": oauth_bench.oauth,
    "lighthouse": lighthouse_bench.lighthouse,
    "scale": scale_bench.scale,
}
# Left out of quick and smoke runs (CI runs --quick): named with --only, they run in any mode.
FULL_ONLY = {
    "lighthouse": "full mode only: one repetition takes about 2.5 minutes "
    "(`./dev bench --only lighthouse` runs it in any mode)",
    "scale": "full mode only: it starts several servers per process count, about 90 s even "
    "at its quick size (`./dev bench --only scale` runs it in any mode)",
}
BROWSER = (
    "cold-start",
    "first-visit",
    "popout",
    "capture",
    "typing",
    "browser-memory",
    "inline",
    "publish",
    "live",
)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "what",
        nargs="?",
        choices=["all", "load"],
        default="all",
        help="'load' runs only the steady-load run (issue 8)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer repetitions; under 3 minutes")
    mode.add_argument(
        "--smoke",
        action="store_true",
        help="one repetition of each, under a minute: proves the benchmarks run (CI)",
    )
    parser.add_argument(
        "--only", nargs="+", choices=[*SERVER, *BROWSER], help="run only these benchmarks"
    )
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL tools run")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    plan = PLANS["smoke" if args.smoke else "quick" if args.quick else "full"]
    if args.no_postgres:
        from dataclasses import replace

        plan = replace(plan, postgres=False)
    names = args.only or (["load"] if args.what == "load" else [*BROWSER, *SERVER])
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    t0 = time.monotonic()
    figures, details, skipped, failed = [], {}, {}, []
    if not args.only and plan.mode != "full":
        skipped |= {name: why for name, why in FULL_ONLY.items() if name in names}
        names = [name for name in names if name not in FULL_ONLY]
    chromium = None
    if any(n in BROWSER for n in names):
        from bench import browser_benches

        chromium = browser_benches.chromium_path()
        browser_results = browser_benches.run(plan, [n for n in names if n in BROWSER])
        figures += browser_results.figures
        details |= browser_results.details
        skipped |= browser_results.skipped
        failed += browser_results.failed
    if "lighthouse" in names and chromium is None:
        from support.browser import chromium_path

        chromium = chromium_path()
    for name in names:
        if name not in SERVER:
            continue
        print(f"== {name}", flush=True)
        try:
            out = SERVER[name](plan)
        except Exception:  # noqa: BLE001 - one broken benchmark must not hide the others
            traceback.print_exc()
            failed.append(name)
            skipped[name] = "failed (see the console output)"
            continue
        if isinstance(out, tuple):
            out, details[name] = out
        figures += out
    run = {
        "started": started,
        "mode": plan.mode,
        "command": " ".join(["./dev bench", *sys.argv[1:]]),
        "seconds": time.monotonic() - t0,
        "machine": machine.describe(chromium),
        "plan": plan.__dict__,
        "figures": figures,
        "details": details,
        "skipped": skipped,
    }
    json_path, md_path = report.write(run)
    print(report.markdown(run) if shutil.get_terminal_size().columns else "")
    print(f"wrote {json_path} and {md_path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
