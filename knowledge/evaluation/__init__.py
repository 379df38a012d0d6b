"""The dev set, retrieval and abstention metrics, calibration and CI floors.
"""

from knowledge.evaluation.evaluate import (
    MODES,
    DevItem,
    Floors,
    Metrics,
    calibrate,
    calibrate_curated,
    evaluate,
    load_dev_set,
    load_floors,
)

__all__ = [
    "DevItem",
    "Metrics",
    "Floors",
    "load_dev_set",
    "load_floors",
    "evaluate",
    "calibrate",
    "calibrate_curated",
    "MODES",
]
