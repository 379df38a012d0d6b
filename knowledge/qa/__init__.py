"""The question engine: hygiene, hybrid retrieval, curated FAQ matching, extractive answers, abstention.

It never imports ``knowledge.recommend``; callers that need both join them above.
"""

from knowledge.qa.abstain import (
    DECLINE_TEXT,
    declined_answer,
    should_decline,
)
from knowledge.qa.compose import (
    Candidate,
    compose,
    is_tradeoff,
    join_sentences,
    side_of,
)
from knowledge.qa.curated import (
    NOTES_PREFIX,
    CuratedEntry,
    CuratedMatch,
    CuratedMatcher,
    cites_map,
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
    "is_tradeoff",
    "side_of",
    "join_sentences",
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
