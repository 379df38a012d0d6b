"""``hwbot eval``: the dev-set metrics for hybrid, dense-only and BM25-only, in one run."""

from __future__ import annotations

import json

from common.errors import HwbotError
from common.settings import HwbotSettings

__all__ = ["run_eval", "format_table"]


def format_table(rows) -> str:
    head = f"{'mode':<8} {'R@1':>5} {'R@3':>5} {'R@5':>5} {'MRR@10':>6} {'term':>5} {'abst.P':>6} {'abst.R':>6} {'false-ref':>9}"
    lines = [head, "-" * len(head)]
    for m in rows:
        lines.append(
            f"{m.mode:<8} {m.recall_at_1:5.3f} {m.recall_at_3:5.3f} {m.recall_at_5:5.3f} {m.mrr_at_10:6.3f} "
            f"{m.term_hit:5.3f} {m.abstain_precision:6.3f} {m.abstain_recall:6.3f} {m.false_refusal:9.3f}"
        )
    return "\n".join(lines)


def run_eval(*, as_json: bool, check: bool, calibrate: bool = False, settings: HwbotSettings | None = None) -> None:
    from bot.runtime import get_engine
    from knowledge.evaluation.evaluate import evaluate, load_dev_set, load_floors
    from knowledge.qa.curated import cites_map

    engine = get_engine(settings=settings)
    items = load_dev_set()
    floors = load_floors()
    expand = cites_map(engine.store)  # a curated FAQ chunk is relevant where the notes it cites are
    if calibrate:
        from knowledge.evaluation.evaluate import calibrate as fit
        from knowledge.evaluation.evaluate import calibrate_curated

        params, accuracy = fit(engine, items, floors)
        print(f"Calibrated on {len(items)} dev questions (balanced accuracy {accuracy:.3f}).")
        print("Suggested [abstain] section for knowledge/params.toml:")
        for key, value in params.model_dump().items():
            print(f"{key} = {value}")
        threshold, right, wrong = calibrate_curated(engine, items)
        print(f"Suggested [curated] section ({right} right, {wrong} wrong curated answers on the dev set):")
        print(f"min_similarity = {threshold}")
        curated = engine.params.curated.model_copy(update={"min_similarity": threshold})
        engine.params = engine.params.model_copy(update={"abstain": params, "curated": curated})
        print()
    rows = evaluate(engine, items, expand=expand)
    if as_json:
        print(json.dumps([m.model_dump() for m in rows], indent=2))
    else:
        n_in = rows[0].n_in
        print(f"Dev set: {n_in} in-domain, {rows[0].n_out} out-of-domain questions\n")
        print(format_table(rows))
        print(f"\ncurated FAQ answers (hybrid): {rows[0].curated_answered}, of which wrong: {rows[0].curated_wrong}")
    failures = floors.failures(rows[0])
    if failures and check:
        raise HwbotError("hybrid misses its floors: " + "; ".join(failures))
