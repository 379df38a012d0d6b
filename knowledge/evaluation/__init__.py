"""The dev set (with its tuning / test split), metrics with Wilson intervals, the answer
lint, calibration on the tuning half, and the CI floors judged on the test half."""

from knowledge.evaluation.calibration import calibrate_abstention, calibrate_curated, curated_right
from knowledge.evaluation.devset import EVAL_DIR, IN_CATEGORIES, OUT_CATEGORIES, DevItem, half_of, halves, load_dev_set, split
from knowledge.evaluation.floors import Floors, load_floors
from knowledge.evaluation.lint import REPEAT_COSINE, lint_answer
from knowledge.evaluation.metrics import HalfReport, ItemResult, Rate, RetrievalRow, relevant_ids, summarize, wilson
from knowledge.evaluation.run import MODES, EvalReport, judge, measure, retrieval_rows

__all__ = [
    "DevItem",
    "EVAL_DIR",
    "IN_CATEGORIES",
    "OUT_CATEGORIES",
    "load_dev_set",
    "split",
    "half_of",
    "halves",
    "Floors",
    "load_floors",
    "lint_answer",
    "REPEAT_COSINE",
    "wilson",
    "Rate",
    "ItemResult",
    "HalfReport",
    "RetrievalRow",
    "relevant_ids",
    "summarize",
    "MODES",
    "EvalReport",
    "measure",
    "judge",
    "retrieval_rows",
    "calibrate_abstention",
    "calibrate_curated",
    "curated_right",
]
