"""scipy `milp` (HiGHS) for the União's choice, in a child process that can be killed
(`valuation.partition.selection` starts it early and closes it when its heuristics prove
their answer)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from typing import Any

import numpy as np


# ---------------------------------------------------------------------------------
# scipy milp (HiGHS) in a child process that can be killed
# ---------------------------------------------------------------------------------
def _child_main() -> None:
    """Entry point of the solver process. It imports scipy first (while the parent
    is still busy with its heuristics), then reads a pickled request on stdin and
    writes a pickled (x, proven) on stdout. HiGHS prints to the C-level stdout, so
    the answer goes to a duplicate of the original descriptor and fds 1 and 2 go to
    /dev/null."""
    out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    answer: tuple[Any, bool] = (None, False)
    try:
        from scipy.optimize import Bounds, LinearConstraint, milp
        req = pickle.load(sys.stdin.buffer)
        w, s = req["w"], req["s"]
        wf = w.astype(float)
        if req["stage"] == 1:
            c, lo = -wf, 0.0
        else:
            c, lo = s.astype(float), float(req["L"])
        r = milp(c, constraints=LinearConstraint(wf[None, :], lo, float(req["U"])),
                 integrality=np.ones(len(w)), bounds=Bounds(0, 1),
                 options={"mip_rel_gap": 0, "time_limit": max(0.05, req["limit"]), "presolve": True})
        answer = (None if r.x is None else (r.x > 0.5), r.status == 0)
    finally:
        pickle.dump(answer, out)
        out.close()


class MilpChild:
    """scipy `milp` (HiGHS, mip_rel_gap=0) in a separate Python process, started
    early so that its imports overlap the parent's heuristics, and killed when its
    budget is spent (HiGHS does not always honour its own time limit)."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-c", "from valuation.partition.selection_milp import _child_main; _child_main()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        except OSError:
            self.proc = None

    def solve(self, stage: int, w: np.ndarray, s: np.ndarray, L: int, U: int,
              budget: float) -> tuple[np.ndarray, bool] | None:
        """(x, proven) or None when it failed or ran out of time."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if budget <= 0.2:
            _kill(proc)
            return None
        req = pickle.dumps({"stage": stage, "w": w, "s": s, "L": L, "U": U,
                            "limit": max(0.05, budget - 1.0)})
        try:
            data, _ = proc.communicate(req, timeout=budget)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return None
        except OSError:
            _kill(proc)
            return None
        if proc.returncode != 0:
            return None
        try:
            x, proven = pickle.loads(data)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
            return None
        if x is None or len(x) != len(w):
            return None
        return np.asarray(x, dtype=bool), bool(proven)

    def close(self) -> None:
        if self.proc is not None:
            _kill(self.proc)
            self.proc = None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        pass
