"""The dev set (with its tuning / test split), metrics with Wilson intervals, the answer
lint, calibration on the tuning half, and the CI floors judged on the test half; the same
for ``profile_from_text`` on the labelled phrasings (:mod:`knowledge.evaluation.extraction`).

Names load lazily (PEP 562): importing one light module of this package (a type, a
loader) must not pull in FAISS, BM25 and numpy with the engine.
"""

from __future__ import annotations

from common.lazy import lazy_getattr

_EXPORTS: dict[str, str] = {
    "calibrate_abstention": "knowledge.evaluation.calibration",
    "calibrate_curated": "knowledge.evaluation.calibration",
    "curated_right": "knowledge.evaluation.calibration",
    "EVAL_DIR": "knowledge.evaluation.devset",
    "IN_CATEGORIES": "knowledge.evaluation.devset",
    "OUT_CATEGORIES": "knowledge.evaluation.devset",
    "DevItem": "knowledge.evaluation.devset",
    "halves": "knowledge.evaluation.devset",
    "load_dev_set": "knowledge.evaluation.devset",
    "split": "knowledge.evaluation.devset",
    "stratified_halves": "knowledge.evaluation.devset",
    "ExtractionFloors": "knowledge.evaluation.extraction",
    "ExtractionHalf": "knowledge.evaluation.extraction",
    "ExtractionReport": "knowledge.evaluation.extraction",
    "LATE_PHRASINGS_FILE": "knowledge.evaluation.extraction",
    "Phrasing": "knowledge.evaluation.extraction",
    "judge_extraction": "knowledge.evaluation.extraction",
    "load_extraction_floors": "knowledge.evaluation.extraction",
    "load_phrasings": "knowledge.evaluation.extraction",
    "measure_extraction": "knowledge.evaluation.extraction",
    "phrasing_halves": "knowledge.evaluation.extraction",
    "Floors": "knowledge.evaluation.floors",
    "load_floors": "knowledge.evaluation.floors",
    "REPEAT_COSINE": "knowledge.evaluation.lint",
    "lint_answer": "knowledge.evaluation.lint",
    "HalfReport": "knowledge.evaluation.metrics",
    "ItemResult": "knowledge.evaluation.metrics",
    "Rate": "knowledge.evaluation.metrics",
    "RetrievalRow": "knowledge.evaluation.metrics",
    "relevant_ids": "knowledge.evaluation.metrics",
    "summarize": "knowledge.evaluation.metrics",
    "wilson": "knowledge.evaluation.metrics",
    "MODES": "knowledge.evaluation.run",
    "EvalReport": "knowledge.evaluation.run",
    "judge": "knowledge.evaluation.run",
    "measure": "knowledge.evaluation.run",
    "retrieval_rows": "knowledge.evaluation.run",
}

__all__ = list(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
