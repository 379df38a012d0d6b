"""Typed, validated tunables (loaded from ``params.toml``, overridable in tests and eval)."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RetrievalParams", "AnswerParams", "AbstainParams", "CuratedParams", "QAParams", "load_params"]

_FILE = Path(__file__).with_name("params.toml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RetrievalParams(_Strict):
    rrf_k: int = Field(60, ge=1)
    depth: int = Field(20, ge=1)
    dense_weight: float = Field(1.0, ge=0)
    bm25_weight: float = Field(1.0, ge=0)
    #: weight of the question-forms ranking (0 turns the signal off)
    forms_weight: float = Field(1.0, ge=0)
    #: a chunk whose sentence has a question form this close (cosine) is always among the hits
    form_pin: float = Field(0.75, ge=0, le=1.01)
    top_chunks: int = Field(4, ge=1)
    #: weight of the lead-map ranking: chunks by their sentences' cosine with the question turned
    #: by the lead map towards the sentence that answers it (0 turns the signal off)
    map_weight: float = Field(0.0, ge=0)


class AnswerParams(_Strict):
    lexical_weight: float = Field(0.35, ge=0)
    rank_prior: float = Field(0.05, ge=0)
    #: weight of a sentence's closest question form (cosine with the question) in its relevance
    form_weight: float = Field(0.5, ge=0)
    #: a sentence with a question form this close to the question answers its ask, whatever its wording
    form_answers: float = Field(0.8, ge=0, le=1.01)
    mmr_lambda: float = Field(0.8, ge=0, le=1)
    min_relevance_ratio: float = Field(0.75, ge=0, le=1)
    max_redundancy: float = Field(0.85, ge=0, le=1)
    #: ... or this share of the shorter sentence's content words in the other: a restatement
    max_word_containment: float = Field(0.8, gt=0, le=1)
    #: ... counted only for sentences of at least this many content words
    restate_min_words: int = Field(6, ge=1)
    #: the share of the best relevance a lead ranked by the fitted lead model must reach (it reads
    #: relevance itself, so the band is wider than the 0.8 of a lead chosen by cues)
    model_lead_band: float = Field(0.6, ge=0, le=1)
    #: a sentence supporting an answer's lead must score at least this share of the lead
    min_support_ratio: float = Field(0.7, ge=0, le=1)
    #: ... and, unless nearly as relevant as the lead (``min_relevance_ratio``), name a word of the
    #: question the lead lacks (knowledge.qa.candidates.on_topic)
    #: ... and score within this many logits of the lead in the fitted lead model (whether a
    #: sentence answers the question, not only shares its topic)
    support_lead_gap: float = Field(3.0, ge=0)
    #: a verdict leads a choice only at this share of the best sentence's relevance or more; below it,
    #: the verdict is on another matter than the question's and the best sentence leads instead
    verdict_floor: float = Field(0.7, ge=0, le=1)
    #: a cause that ends a diagnosis answered only with fixes is at least this share of the lead's relevance
    cause_relevance: float = Field(0.85, ge=0, le=1)


class AbstainParams(_Strict):
    min_dense: float = 0.40
    strong_dense: float = 0.50
    min_bm25: float = 1.0
    min_margin: float = 0.15
    dense_only_min: float = 0.45
    bm25_only_min: float = 1.0
    #: a question this close (cosine) to one of a sentence's question forms is answered
    strong_form: float = Field(0.7, ge=0, le=1.01)
    #: a later ask of a multi-part question that declined alone is read with the ask before it
    #: unless the learned gate gives it at least this probability of being out of the domain
    carry_out: float = Field(1.01, ge=0, le=1.01)


class CuratedParams(_Strict):
    #: best cosine of a user's question with a curated entry's forms at or above which
    #: the entry may answer (calibrated on the tuning half of the dev set) ...
    min_similarity: float = Field(0.70, ge=0, le=1)
    #: ... provided it leads the runner-up entry by at least this much
    min_margin: float = Field(0.05, ge=0, le=1)
    #: ... and one of the entry's answer sentences is itself this close to the question: a
    #: question worded like an entry's heading but asking something else ("how do we keep
    #: the option of moving to TPUs later?" vs "when should we stay on GPUs rather than move
    #: to TPUs?") shares the heading's words, not its answer's
    min_answer_similarity: float = Field(0.40, ge=0, le=1)
    #: ... and the question names no word that the notes say in only a few sentences (this
    #: inverse sentence frequency or more; 4.0 is at most three of the notes' ~170 sentences)
    #: and the entry never says: "spot TPUs, what's the catch?" is not the general catch
    rare_word_idf: float = Field(4.0, gt=0)


class QAParams(_Strict):
    retrieval: RetrievalParams = RetrievalParams()
    answer: AnswerParams = AnswerParams()
    abstain: AbstainParams = AbstainParams()
    curated: CuratedParams = CuratedParams()


@lru_cache(maxsize=1)
def load_params() -> QAParams:
    return QAParams(**tomllib.loads(_FILE.read_text(encoding="utf-8")))
