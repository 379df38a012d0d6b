"""The question engine: hygiene, hybrid retrieval, curated FAQ matching, extractive answers, abstention.

It never imports ``knowledge.recommend``; callers that need both join them above.
"""

from knowledge.qa.abstain import (
    DECLINE_TEXT,
    DECLINE_TEXTS,
    declined_answer,
    lacks_asked_kind,
    should_decline,
)
from knowledge.qa.compose import (
    Candidate,
    argues_for,
    compose,
    is_verdict,
    join_sentences,
    mentions_domain,
    side_of,
)
from knowledge.qa.curated import (
    NOTES_PREFIX,
    CuratedEntry,
    CuratedMatch,
    CuratedMatcher,
    FaqForms,
    cites_map,
    faq_forms,
)
from knowledge.qa.engine import (
    QAEngine,
    ensure_index,
)
from knowledge.qa.fusion import (
    rrf,
)
from knowledge.qa.hygiene import (
    MAX_QUESTION_CHARS,
    EmptyQuestionError,
    clean_question,
)
from knowledge.qa.intent import (
    CHOICE_INTENTS,
    INTENTS,
    Intent,
    IntentClassifier,
    brevity_limit,
    intent_data,
)
from knowledge.qa.lexical import (
    STOPWORDS,
    tokenize,
)
from knowledge.qa.models import (
    Answer,
    AnswerSentence,
    Citation,
)
from knowledge.qa.params import (
    AbstainParams,
    AnswerParams,
    CuratedParams,
    QAParams,
    RetrievalParams,
    load_params,
)
from knowledge.qa.retrieval import (
    Evidence,
    Hit,
    Mode,
    Retriever,
)
from knowledge.qa.standalone import (
    dangling_opener,
    meta_phrase,
    standalone_rules,
)

__all__ = [
    "Citation",
    "AnswerSentence",
    "Answer",
    "RetrievalParams",
    "AnswerParams",
    "AbstainParams",
    "CuratedParams",
    "QAParams",
    "load_params",
    "MAX_QUESTION_CHARS",
    "clean_question",
    "EmptyQuestionError",
    "tokenize",
    "STOPWORDS",
    "rrf",
    "Hit",
    "Retriever",
    "Mode",
    "Evidence",
    "Candidate",
    "compose",
    "side_of",
    "argues_for",
    "is_verdict",
    "mentions_domain",
    "join_sentences",
    "Intent",
    "IntentClassifier",
    "INTENTS",
    "CHOICE_INTENTS",
    "intent_data",
    "brevity_limit",
    "dangling_opener",
    "meta_phrase",
    "standalone_rules",
    "FaqForms",
    "faq_forms",
    "lacks_asked_kind",
    "DECLINE_TEXTS",
    "CuratedEntry",
    "CuratedMatch",
    "CuratedMatcher",
    "cites_map",
    "NOTES_PREFIX",
    "should_decline",
    "declined_answer",
    "DECLINE_TEXT",
    "QAEngine",
    "ensure_index",
]
