"""``hwbot fit-gate``: fit the learned out-of-domain gate, or measure it leave-one-batch-out.

Fitting writes ``knowledge/qa/data/domain_gate/`` from the labelled batches given, the dev set
and the gate's own written questions (:mod:`knowledge.evaluation.fit_gate`). ``--lobo`` never
touches the committed weights: for each batch in turn it fits on the others (plus the dev set
and the written questions), installs that gate in memory, and scores the held-out batch end
to end through the same path as ``hwbot eval --fresh``, beside the same engine with no gate.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from common.errors import InputError
from common.settings import HwbotSettings

__all__ = ["run_fit_gate"]


def run_fit_gate(settings: HwbotSettings, batches: list[Path], *, lobo: bool) -> None:
    from bot.commands.eval import _score_questions
    from bot.engines import get_engine
    from knowledge.evaluation.fit_gate import (
        REPO_FILES,
        feature_matrix,
        fit_gate,
        load_labelled,
        never_gate,
        write_gate,
    )
    from knowledge.evaluation.fresh import FreshQuestion, load_fresh_batch
    from knowledge.qa import domain_gate

    engine = get_engine(settings)
    sources = {p.name: load_labelled(p) for p in [*batches, *REPO_FILES]}
    rows = {name: feature_matrix(engine, [q for q, _ in items]) for name, items in sources.items()}
    labels = {name: np.asarray([o for _, o in items], dtype=np.float64) for name, items in sources.items()}

    def fit(names: list[str]) -> domain_gate.Gate:
        return fit_gate(np.vstack([rows[n] for n in names]), np.concatenate([labels[n] for n in names]), names,
                        known_sources=sorted({c.source_id for c in engine.store.chunks}))

    if not lobo:
        gate = fit(list(sources))
        write_gate(gate, domain_gate.DEFAULT_DIR)
        m = gate.manifest
        print(f"wrote {domain_gate.DEFAULT_DIR} ({m.n_in} in, {m.n_out} out; threshold {m.threshold:.3f}; "
              f"out of fold: in-domain declined {m.oof_in_declined:.3f}, out-of-domain declined {m.oof_out_declined:.3f})")
        return
    if not batches:
        raise InputError("--lobo needs labelled batches to hold out in turn (hwbot fit-gate --lobo A.jsonl B.jsonl)")
    print("held out | arm    | false refusals | out-of-domain declined | threshold")
    for held in batches:
        gate = fit([n for n in sources if n != held.name])
        items = [i for i in load_fresh_batch(held) if isinstance(i, FreshQuestion)]
        for arm, installed in (("before", never_gate()), ("after", gate)):
            domain_gate.install(installed)
            try:
                _, report_json = _score_questions(items, settings)
            finally:
                domain_gate.install(None)
            report = json.loads(report_json)
            fr, ood = report["false_refusal"], report["ood_declined"]
            print(f"{held.name} | {arm:6} | {fr['k']}/{fr['n']} | {ood['k']}/{ood['n']} | {gate.manifest.threshold:.3f}")
