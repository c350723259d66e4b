"""gridemst benchmark suites: run the driver, summarize, report, plot (see bench.py)."""
