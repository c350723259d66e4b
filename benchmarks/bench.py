#!/usr/bin/env python3
"""Runs gridemst's benchmark suites with the driver gridemst-bench, and plots them.

    benchmarks/bench.py list
    benchmarks/bench.py run SUITE... [--backend cuda|cpu] --out DIR [options]
    benchmarks/bench.py plot DIR

`run` writes into DIR, per suite, runs.csv (one row per timed solve),
iterations.csv (one row per Boruvka iteration of each), peers.csv (the
peers' timed solves), summary.csv and summary.md (median, min, max per
configuration, time / floor, each peer's time and its ratio to gridemst's),
log.txt; and DIR/meta.json and DIR/README.md (device, date, commit, command,
tables).  SUITE `all` is every suite but smoke.  `plot` makes PNG and SVG
plots with gnuplot in DIR/plots/ and rewrites DIR/README.md with them.
Needs only python3's standard library (and gnuplot for `plot`; numpy and
quitefastmst in the Python given to --quitefastmst).
"""
import argparse
import os
import sys

from gemstbench import peers, plots, report, runner, suites, summary


def cmd_list(_args, _argv):
    for name, (_, description) in suites.SUITES.items():
        print(f"{name:10s} {description}")


def cmd_run(args, argv):
    names = suites.ALL if args.suites == ["all"] else args.suites
    for name in names:
        if name not in suites.SUITES:
            sys.exit(f"bench.py: unknown suite '{name}' (bench.py list shows them)")
    os.makedirs(args.out, exist_ok=True)
    r = runner.Runner(args, argv)
    meta = runner.load_meta(args.out)
    if args.note:
        meta["note"] = args.note
    failed = False
    for name in names:
        record = r.run_suite(name)
        rows = summary.write(os.path.join(args.out, name), name)
        failed |= any(row["trees_agree"] != "yes" for row in rows)
        failed |= any(row.get(f"{p}_agree") == "NO" for row in rows for p in peers.NAMES)
        failed |= any("FAILED" in n for n in record["notes"])
        meta["suites"][name] = record
        runner.save_meta(args.out, meta)
        report.write(args.out, meta)
    return 1 if failed else 0


def cmd_plot(args, _argv):
    meta = runner.load_meta(args.dir)
    if not meta["suites"]:
        sys.exit(f"bench.py: {args.dir} holds no results (no meta.json)")
    made = plots.make_all(args.dir)
    report.write(args.dir, meta)
    print("bench.py: made " + ", ".join(made) + f" in {os.path.join(args.dir, 'plots')}", file=sys.stderr)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the suites")
    run = sub.add_parser("run", help="run suites")
    run.add_argument("suites", nargs="+", metavar="SUITE", help="suite names, or all")
    run.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    run.add_argument("--out", required=True, help="results directory")
    run.add_argument("--driver", help="the gridemst-bench program (default: found in the usual build directories)")
    run.add_argument("--gridemst", help="the gridemst program, which writes the points files for the peers "
                                        "(default: the one built beside the driver)")
    run.add_argument("--max-n", type=float, help="skip sets larger than this (default: none on cuda, 1e6 on "
                                                 "cpu; 0: none)")
    run.add_argument("--repeat", type=int, help="timed solves per configuration (default 5 cuda, 3 cpu)")
    run.add_argument("--warmup", type=int, help="warm-up solves per configuration (default 1)")
    run.add_argument("--blocks", type=int,
                     help="runs of the driver per set, each a warm-up and --repeat timed solves, alternating with "
                          "the peers' (default 2 with peers, else 1)")
    run.add_argument("--max-seconds", type=float,
                     help="a configuration stops repeating after this many seconds (default 6 cuda, 10 cpu)")
    run.add_argument("--threads", type=int, default=0, help="CPU threads (default: the OpenMP default)")
    run.add_argument("--precision", choices=["float", "double"], default="float")
    run.add_argument("--deadline", type=float,
                     help="seconds: start no driver run after this and stop the one running (default: none)")
    run.add_argument("--commit", help="the commit to record (default: git rev-parse HEAD)")
    run.add_argument("--note", help="a paragraph for DIR/README.md (e.g. about the machine)")
    peers.add_options(run)
    plot = sub.add_parser("plot", help="plot a results directory")
    plot.add_argument("dir")
    args = ap.parse_args(argv)
    return {"list": cmd_list, "run": cmd_run, "plot": cmd_plot}[args.command](args, argv) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
