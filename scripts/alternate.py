#!/usr/bin/env python3
"""Times commands in alternating runs, so that a change in the machine's load falls on
all of them alike: `alternate.py N CMD_A... [-- CMD_B... [-- ...]]` runs A, B, ... in turn
N times and prints each command's median and fastest wall time in milliseconds (its
output discarded). Used by scripts/bench-tree.sh and for the figures of
docs/performance.md that compare two builds of assetc."""
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    commands: list[list[str]] = [[]]
    for arg in sys.argv[2:]:
        if arg == "--":
            commands.append([])
        else:
            commands[-1].append(arg)
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for command, spent in zip(commands, times):
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            spent.append((time.perf_counter() - start) * 1000)
    for command, spent in zip(commands, times):
        print(f"{statistics.median(spent):8.2f} ms median {min(spent):8.2f} ms fastest  {' '.join(command)}")


if __name__ == "__main__":
    main()
