"""The question engine: hygiene, hybrid retrieval, curated FAQ matching, extractive answers, abstention.

It never imports the recommendation package; callers that need both join them above (bot.advice).

Names load lazily (PEP 562): importing one light module of this package (a type, a
loader) must not pull in FAISS, BM25 and numpy with the engine.
"""

from __future__ import annotations

from common.lazy import lazy_getattr

_EXPORTS: dict[str, str] = {
    "DECLINE_TEXT": "knowledge.qa.abstain",
    "DECLINE_TEXTS": "knowledge.qa.abstain",
    "declined_answer": "knowledge.qa.abstain",
    "lacks_asked_kind": "knowledge.qa.abstain",
    "should_decline": "knowledge.qa.abstain",
    "Candidate": "knowledge.qa.compose",
    "argues_for": "knowledge.qa.compose",
    "compose": "knowledge.qa.compose",
    "is_verdict": "knowledge.qa.compose",
    "join_sentences": "knowledge.qa.joining",
    "mentions_domain": "knowledge.qa.compose",
    "side_of": "knowledge.qa.compose",
    "NOTES_PREFIX": "knowledge.qa.curated",
    "CuratedEntry": "knowledge.qa.curated",
    "CuratedMatch": "knowledge.qa.curated",
    "CuratedMatcher": "knowledge.qa.curated",
    "FaqForms": "knowledge.qa.curated",
    "cites_map": "knowledge.qa.curated",
    "faq_forms": "knowledge.qa.curated",
    "QAEngine": "knowledge.qa.engine",
    "ensure_index": "knowledge.qa.engine",
    "rrf": "knowledge.qa.fusion",
    "MAX_QUESTION_CHARS": "knowledge.qa.hygiene",
    "EmptyQuestionError": "knowledge.qa.hygiene",
    "clean_question": "knowledge.qa.hygiene",
    "CHOICE_INTENTS": "knowledge.qa.intent",
    "INTENTS": "knowledge.qa.intent",
    "Intent": "knowledge.qa.intent",
    "IntentClassifier": "knowledge.qa.intent",
    "brevity_limit": "knowledge.qa.intent",
    "intent_data": "knowledge.qa.intent",
    "STOPWORDS": "knowledge.qa.lexical",
    "tokenize": "knowledge.qa.lexical",
    "Answer": "knowledge.qa.models",
    "AnswerSentence": "knowledge.qa.models",
    "Citation": "knowledge.qa.models",
    "AbstainParams": "knowledge.qa.params",
    "AnswerParams": "knowledge.qa.params",
    "CuratedParams": "knowledge.qa.params",
    "QAParams": "knowledge.qa.params",
    "RetrievalParams": "knowledge.qa.params",
    "load_params": "knowledge.qa.params",
    "Evidence": "knowledge.qa.retrieval",
    "Hit": "knowledge.qa.retrieval",
    "Mode": "knowledge.qa.retrieval",
    "Retriever": "knowledge.qa.retrieval",
    "dangling_opener": "knowledge.qa.standalone",
    "meta_phrase": "knowledge.qa.standalone",
    "standalone_rules": "knowledge.qa.standalone",
}

__all__ = list(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
