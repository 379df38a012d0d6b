"""The eval harness on the dev set: hybrid must meet its floors (CI fails below them)."""

from __future__ import annotations

from knowledge.evaluation.evaluate import MODES, evaluate, load_dev_set, load_floors


def test_dev_set_shape():
    items = load_dev_set()
    ins = [i for i in items if i.domain == "in"]
    outs = [i for i in items if i.domain == "out"]
    assert len(ins) >= 40 and len(outs) >= 20
    assert all(i.relevant and i.terms for i in ins)
    assert len({i.question.lower() for i in items}) == len(items)


def test_relevant_labels_exist(qa):
    ids = set(qa.store.by_id())
    for item in load_dev_set():
        assert set(item.relevant) <= ids, item.id


def test_hybrid_meets_floors_and_all_modes_are_reported(qa):
    expand = {c.chunk_id: set(c.cites) for c in qa.store.chunks if c.cites}
    rows = evaluate(qa, load_dev_set(), expand=expand)
    assert [m.mode for m in rows] == list(MODES)
    hybrid = rows[0]
    assert load_floors().failures(hybrid) == [], hybrid
    for m in rows:
        assert 0 <= m.recall_at_1 <= m.recall_at_3 <= m.recall_at_5 <= 1
        assert 0 <= m.mrr_at_10 <= 1
