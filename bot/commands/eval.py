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
    from knowledge.recommend.learned.combine import Mode

__all__ = ["run_eval", "run_fresh", "run_lobo", "format_table"]


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



def run_fresh(settings: HwbotSettings, path: Path, *, as_json: bool, extractor: Mode = "combined") -> None:
    """Score one fresh batch: questions through the same path as ``ask --batch``, messages
    through the extractor variant ``extractor`` (the rules, the learned heads, or both, as
    ``recommend --text`` reads them). The figures are a first measurement only the first time."""
    from knowledge.evaluation.fresh import FreshMessage, FreshQuestion, load_fresh_batch

    items = load_fresh_batch(path)
    questions = [i for i in items if isinstance(i, FreshQuestion)]
    messages = [i for i in items if isinstance(i, FreshMessage)]
    lines = _score_questions(questions, settings) if questions else _score_messages(messages, settings, extractor)
    if as_json:
        print(lines[1])
    else:
        print(f"Fresh batch {path} ({len(items)} items)")
        print(lines[0])


def _score_questions(items: list[FreshQuestion], settings: HwbotSettings) -> tuple[str, str]:
    from bot.advice import Advice, advise_answer
    from bot.engines import get_engine
    from bot.extractor import lazy_extractor
    from knowledge.evaluation.fresh import score_questions
    from knowledge.qa.abstain import declined_answer

    engine = get_engine(settings)
    # a team's situation is read as `hwbot ask` reads it (the learned extractor, not the rules alone),
    # so the batch measures the answers users get
    extract = lazy_extractor(settings)
    answers = []
    for result in engine.ask_many([i.question for i in items]):
        advice = advise_answer(result, result.question, extract=extract) if result is not None else Advice(declined_answer(""))
        answers.append(advice.to_contract())
    report = score_questions(items, answers)
    return "\n".join(report.lines()), report.model_dump_json(indent=2)


def _score_messages(items: list[FreshMessage], settings: HwbotSettings, extractor: Mode) -> tuple[str, str]:
    """Each message through the shared reading step with the chosen extraction; its stated fields are
    scored (implied answers are shown to users as implied, so they are not counted as understood)."""
    from bot.extractor import extractor_for
    from knowledge.evaluation.fresh import score_messages
    from knowledge.recommend.reading import read_message

    extract = extractor_for(settings, extractor)
    got = [{f: e.value for f, e in read_message(i.text, extract=extract).stated.items()} for i in items]
    report = score_messages(items, got)
    return f"extractor: {extractor}\n" + "\n".join(report.lines()), report.model_dump_json(indent=2)


def run_extractor_split(*, as_json: bool, settings: HwbotSettings) -> None:
    """Every extractor variant on the labelled clauses' validation and test splits (no fresh batch needed)."""
    from bot.extractor import READER_NOTICE, clause_reader
    from knowledge.evaluation.ablation import ablation_rows, format_rows

    reader = clause_reader(settings)
    if reader is None:
        raise HwbotError(f"{READER_NOTICE}: the ablation needs the learned heads")
    rows = ablation_rows(reader)
    print(json.dumps([r.model_dump() for r in rows], indent=2) if as_json else format_rows(rows))


def run_lobo(settings: HwbotSettings, paths: list[Path], *, as_json: bool) -> None:
    """Each batch held out in turn: the extractor retrained (in a scratch directory) without it, every variant scored."""
    import tempfile

    from knowledge.evaluation.lobo import format_lobo, leave_one_batch_out

    if len(paths) < 2:
        raise HwbotError("--lobo needs at least two batches: each is scored with the extractor trained without it")
    with tempfile.TemporaryDirectory(prefix="hwbot-lobo-") as work:
        rows = leave_one_batch_out(paths, Path(work))
    print(json.dumps([r.model_dump() for r in rows], indent=2) if as_json else format_lobo(rows))


def run_train_extractor(settings: HwbotSettings, *, check: bool = False) -> None:
    """Fine-tune the encoder's top layers and the heads on the train split, thresholds on validation; write them.

    ``check``: retrain into a scratch directory and compare with the committed files instead of
    replacing them (the full reproduction takes minutes, so it is this command, not a test)."""
    import tempfile

    from knowledge.recommend.learned.heads import HEADS_DIR, HeadsManifest
    from knowledge.recommend.learned.train import train_heads

    if check:
        with tempfile.TemporaryDirectory(prefix="hwbot-train-") as work:
            train_heads(out_dir=Path(work))
            fresh = HeadsManifest.model_validate_json((Path(work) / "manifest.json").read_bytes())
        committed = HeadsManifest.model_validate_json((HEADS_DIR / "manifest.json").read_bytes())
        keys = ("data_sha256", "overlay_sha256", "weights_sha256", "thresholds", "modifier_gate")
        differ = [k for k in keys if getattr(fresh, k) != getattr(committed, k)]
        if differ:
            raise HwbotError(f"retraining does not reproduce the committed extractor ({', '.join(differ)} differ): "
                             f"run `hwbot train-extractor` and commit {HEADS_DIR.name}/")
        print(f"The committed extractor is what retraining makes (data sha256 {committed.data_sha256[:12]}…)")
        return
    manifest = train_heads()
    print(f"Wrote {HEADS_DIR}/tuned_layers.npz, heads.npy and manifest.json (data sha256 {manifest.data_sha256[:12]}…)")
    for name, limits in manifest.thresholds.items():
        print(f"{name:<20} high {limits.high:.2f}  medium {limits.medium:.2f}")
    print(f"modifier gate {manifest.modifier_gate:.2f}")


def run_fit_leads(settings: HwbotSettings) -> None:
    """Fit the lead map and the lead model on its out-of-fold cosines; write both."""
    import numpy as np

    from bot.engines import get_engine
    from knowledge.evaluation.fit_leads import to_toml
    from knowledge.evaluation.lead_training import fit_leads
    from knowledge.qa.lead_map import LEAD_MAP, lead_map
    from knowledge.qa.lead_model import _FILE, lead_model

    engine = get_engine(settings)
    if not any(entry.lead for entry in engine.store.forms):
        raise HwbotError("the index holds no question forms to fit the lead model on (rebuild it with `hwbot index`)")
    fit = fit_leads(engine)
    for line in fit.report:
        print(line)
    np.save(LEAD_MAP, fit.map, allow_pickle=False)
    _FILE.write_text(to_toml(fit.model), encoding="utf-8")
    lead_model.cache_clear()
    lead_map.cache_clear()
    print(f"Wrote {LEAD_MAP} and {_FILE}")
    for name, weight in fit.model.weights.items():
        print(f"  {name:<8} {weight:+.3f}")
