"""``hwbot eval``: the dev-set figures for both halves (Wilson 95 % intervals), retrieval per mode.

``--calibrate`` fits the abstention and curated-routing thresholds on the tuning half
only and prints the sections to paste into ``knowledge/qa/params.toml``; ``--check``
fails when the test half misses a floor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from common.errors import HwbotError
from common.settings import HwbotSettings

if TYPE_CHECKING:
    from knowledge.evaluation.fresh import FreshMessage, FreshQuestion

__all__ = ["run_eval", "run_fresh", "format_table"]


def format_table(rows) -> str:
    head = f"{'mode':<8} {'R@1':>5} {'R@3':>5} {'R@5':>5} {'MRR@10':>6}"
    lines = [head, "-" * len(head)]
    for m in rows:
        lines.append(f"{m.mode:<8} {m.recall_at_1:5.3f} {m.recall_at_3:5.3f} {m.recall_at_5:5.3f} {m.mrr_at_10:6.3f}")
    return "\n".join(lines)


def run_eval(settings: HwbotSettings, *, as_json: bool, check: bool, calibrate: bool = False) -> None:
    from bot.engines import get_engine
    from knowledge.evaluation import calibrate_abstention, calibrate_curated, load_dev_set, load_floors, measure, split

    engine = get_engine(settings)
    items = load_dev_set()
    tune, _ = split(items)
    # The harness asks each question once per mode; encode them all up front, in batches.
    engine.encode_ahead([engine.clean(i.question)[0] for i in items])
    floors = load_floors()
    if calibrate:
        sim, margin, right, wrong = calibrate_curated(engine, tune)
        curated = engine.params.curated.model_copy(update={"min_similarity": sim, "min_margin": margin})
        engine.params = engine.params.model_copy(update={"curated": curated})
        abstain, accuracy = calibrate_abstention(engine, tune)
        engine.params = engine.params.model_copy(update={"abstain": abstain})
        print(f"Calibrated on the {len(tune)} tuning questions.")
        print(f"[curated] ({right} right, {wrong} wrong curated answers)")
        print(f"min_similarity = {sim}\nmin_margin = {margin}")
        print(f"[abstain] (balanced accuracy {accuracy:.3f})")
        for key, value in abstain.model_dump().items():
            print(f"{key} = {value}")
        print()
    report = measure(engine, items)
    if as_json:
        print(json.dumps(report.model_dump(exclude={"items"}), indent=2))
    else:
        print(f"Dev set: {len(items)} questions ({len(tune)} tuning, {len(items) - len(tune)} test)\n")
        for half in (report.tune, report.test):
            print("\n".join(half.lines()))
            print()
        print(format_table(report.retrieval))
        bad = [r for r in report.items if r.lint]
        for r in bad:
            print(f"lint [{r.half}] {r.question}: {'; '.join(r.lint)}")
    failures = floors.failures(report.test)
    if failures and check:
        raise HwbotError("the test half misses its floors: " + "; ".join(failures))



def run_fresh(settings: HwbotSettings, path: Path, *, as_json: bool) -> None:
    """Score one fresh batch: questions through the same path as ``ask --batch``, messages
    through ``profile_from_text``. The figures are a first measurement only the first time."""
    from knowledge.evaluation.fresh import FreshMessage, FreshQuestion, load_fresh_batch

    items = load_fresh_batch(path)
    questions = [i for i in items if isinstance(i, FreshQuestion)]
    messages = [i for i in items if isinstance(i, FreshMessage)]
    lines = _score_questions(questions, settings) if questions else _score_messages(messages)
    if as_json:
        print(lines[1])
    else:
        print(f"Fresh batch {path} ({len(items)} items)")
        print(lines[0])


def _score_questions(items: list[FreshQuestion], settings: HwbotSettings) -> tuple[str, str]:
    from bot.advice import Advice, advise_answer
    from bot.engines import get_engine
    from knowledge.evaluation.fresh import score_questions
    from knowledge.qa.abstain import declined_answer

    engine = get_engine(settings)
    answers = []
    for result in engine.ask_many([i.question for i in items]):
        advice = advise_answer(result, result.question) if result is not None else Advice(declined_answer(""))
        answers.append(advice.to_contract())
    report = score_questions(items, answers)
    return "\n".join(report.lines()), report.model_dump_json(indent=2)


def _score_messages(items: list[FreshMessage]) -> tuple[str, str]:
    from knowledge.evaluation.fresh import score_messages
    from knowledge.recommend import profile_from_text

    report = score_messages(items, [profile_from_text(i.text).profile().known() for i in items])
    return "\n".join(report.lines()), report.model_dump_json(indent=2)
