"""One tokenizer for everything lexical: BM25 and the answerer's word-overlap score.

Both must see the same tokens, or a sentence the BM25 side found relevant would score
zero overlap. Stemming (Snowball, via PyStemmer) folds "pipelines" into "pipeline";
acronym plurals ("TPUs") are folded first because the stemmer leaves them alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN_PLUS

__all__ = ["tokenize", "STOPWORDS"]

#: Question words and fillers that carry no topic. "vs" stays: it marks a trade-off.
STOPWORDS = frozenset(STOPWORDS_EN_PLUS) | {"would", "could", "should", "us", "we", "our", "i", "my", "one", "use", "using"}
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+\-/.]*[a-z0-9+]|[a-z0-9]")
_ACRONYM_PLURAL = re.compile(r"\b(gpu|tpu|asic|cpu|kernel|op|pod)s\b")
_URL = re.compile(r"https?://\S+|www\.\S+")
#: British -ise/-isation spellings folded into -ize/-ization ("utilisation", "optimise"),
#: so a question spelt either way shares its words with the notes. The fold runs on both
#: sides (questions and notes), so a word it bends needlessly ("precise") still matches.
_BRITISH = re.compile(r"\b([a-z]{4,}?)is(ation|ations|e|es|ed|ing)\b")


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def tokenize(text: str) -> list[str]:
    """Lowercase, drop URLs and stopwords, fold plurals and British spellings, stem. Order is kept (duplicates too)."""
    text = _URL.sub(" ", text.lower())
    text = _ACRONYM_PLURAL.sub(r"\1", text)
    text = _BRITISH.sub(r"\1iz\2", text)
    words = []
    for tok in _TOKEN.findall(text):
        for part in re.split(r"[/.\-]", tok) if not tok.replace(".", "").isdigit() else [tok]:
            if part and part not in STOPWORDS:
                words.append(part)
    return _stemmer().stemWords(words)
