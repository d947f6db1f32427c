"""What the benchmark scripts print about the machine they ran on."""

from __future__ import annotations

import os
import platform


def describe() -> str:
    """The CPU model, logical cores, operating system and Python version."""
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, or ``?`` where there are none."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
