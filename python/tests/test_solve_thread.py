"""The GIL is released while solving, and Ctrl-C ends a solve's call."""
import _thread
import signal
import threading
import time

import pytest

import gridemst
from reference import random_points


def test_other_threads_run_while_a_solve_does():
    X = random_points(200_000, 2, seed=61)
    solved = []
    thread = threading.Thread(target=lambda: solved.append(gridemst.emst(X, backend="cpu", threads=1)))
    ticks = [time.perf_counter()]
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join()
    assert len(solved) == 1
    took = ticks[-1] - ticks[0]
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    # a solve holding the GIL would stop this loop for most of its time
    assert took > 0.1 and max(gaps) < took / 2, (took, max(gaps))


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timers")
def test_an_interrupt_during_a_solve_raises_keyboard_interrupt():
    X = random_points(200_000, 2, seed=62)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(KeyboardInterrupt):
            gridemst.emst(X, backend="cpu", threads=1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
                    reason="SIGINT is ignored here (a job started in the background): no Ctrl-C reaches Python")
def test_ctrl_c_stops_a_long_solve_early():
    """Ctrl-C (SIGINT, as _thread.interrupt_main delivers it) cancels the
    solve at its next progress report instead of waiting for its end."""
    X = random_points(1_000_000, 2, seed=63)
    t0 = time.perf_counter()
    gridemst.emst(X, backend="cpu", threads=1)
    whole = time.perf_counter() - t0
    # early in the grid's build, which ends with the first report
    timer = threading.Timer(0.02 * whole, _thread.interrupt_main)
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            gridemst.emst(X, backend="cpu", threads=1)
    finally:
        timer.cancel()
    stopped = time.perf_counter() - t0
    assert stopped < 0.5 * whole, (stopped, whole)
