"""One tokenizer for everything lexical: BM25 and the answerer's word-overlap score.

Both must see the same tokens, or a sentence the BM25 side found relevant would score
zero overlap. Stemming (Snowball, via PyStemmer) folds "pipelines" into "pipeline";
acronym plurals ("TPUs") are folded first because the stemmer leaves them alone.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import Stemmer
from pydantic import BaseModel, ConfigDict, field_validator

from knowledge.qa.bm25 import bm25s

__all__ = ["tokenize", "sentence_idf", "sentence_words", "STOPWORDS"]

#: Question words and fillers that carry no topic. "vs" stays: it marks a trade-off.
STOPWORDS = frozenset(bm25s.stopwords.STOPWORDS_EN_PLUS) | {"would", "could", "should", "us", "we", "our", "i", "my", "one", "use", "using"}
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+\-/.]*[a-z0-9+]|[a-z0-9]")
_ACRONYM_PLURAL = re.compile(r"\b(gpu|tpu|asic|cpu|kernel|op|pod)s\b")
_URL = re.compile(r"https?://\S+|www\.\S+")
#: British -ise/-isation spellings folded into -ize/-ization ("utilisation", "optimise"),
#: so a question spelt either way shares its words with the notes. The fold runs on both
#: sides (questions and notes), so a word it bends needlessly ("precise") still matches.
_BRITISH = re.compile(r"\b([a-z]{4,}?)is(ation|ations|e|es|ed|ing)\b")


_SHORTHAND_FILE = Path(__file__).with_name("data") / "shorthand.toml"


class _Shorthand(BaseModel):
    """``data/shorthand.toml``: chat shorthand ("seq", "util", "bf16") and the notes' word for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    shorthand: dict[str, str]

    @field_validator("shorthand")
    @classmethod
    def _single_lower_tokens(cls, table: dict[str, str]) -> dict[str, str]:
        bad = [k for k in table if not re.fullmatch(r"[a-z0-9]+", k) or not table[k].strip()]
        if bad:
            raise ValueError(f"keys must be single lower-case tokens with a value: {', '.join(bad)}")
        return table


@lru_cache(maxsize=1)
def _shorthand() -> dict[str, list[str]]:
    table = _Shorthand.model_validate(tomllib.loads(_SHORTHAND_FILE.read_text(encoding="utf-8"))).shorthand
    return {k: v.lower().split() for k, v in table.items()}


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def tokenize(text: str) -> list[str]:
    """Lowercase, drop URLs and stopwords, fold plurals and British spellings, stem. Order is kept (duplicates too)."""
    text = _URL.sub(" ", text.lower())
    text = _ACRONYM_PLURAL.sub(r"\1", text)
    words = []
    shorthand = _shorthand()
    for tok in _TOKEN.findall(text):
        for part in re.split(r"[/.\-]", tok) if not tok.replace(".", "").isdigit() else [tok]:
            # "seq" is read as the notes' "sequence"; the shorthand is looked up before the British
            # fold, which would read "elementwise" as "elementwize" and miss its key
            for word in shorthand.get(part, [part]):
                if "is" in word:  # the fold's only shape; most words skip the regex (cold start)
                    word = _BRITISH.sub(r"\1iz\2", word)
                if word and word not in STOPWORDS:
                    words.append(word)
    return _stemmer().stemWords(words)


_WORDS: dict[int, tuple[object, list[frozenset[str]]]] = {}
_IDF: dict[int, tuple[object, dict[str, float]]] = {}


class _Sentences(Protocol):
    @property
    def sentences(self) -> list[str]: ...


class _Store(Protocol):
    @property
    def chunks(self) -> "Sequence[_Sentences]": ...


def sentence_words(store: _Store) -> list[frozenset[str]]:
    """The words of every sentence of the store, in the order of its sentence vectors (chunk by
    chunk), tokenized once per store: the IDF, the curated matcher and the answerer all read them."""
    cached = _WORDS.get(id(store))
    if cached is not None and cached[0] is store:
        return cached[1]
    words = [frozenset(tokenize(s)) for chunk in store.chunks for s in chunk.sentences]
    _WORDS[id(store)] = (store, words)
    return words


def sentence_idf(store: _Store) -> dict[str, float]:
    """Inverse sentence frequency of every token of the store's sentences (cached per store).

    Word overlap weighted by it rewards a sentence for sharing the question's rare words
    ("billed", "float64"), not for saying "TPU", which nearly every sentence does; and a word
    the notes say in few sentences is what a question holding it is about ("spot" in "spot
    TPUs, what's the catch?"), which a general answer does not cover.
    """
    cached = _IDF.get(id(store))
    if cached is not None and cached[0] is store:
        return cached[1]
    rows = sentence_words(store)
    df: dict[str, int] = {}
    for words in rows:
        for tok in words:
            df[tok] = df.get(tok, 0) + 1
    n = len(rows)
    idf = {tok: math.log((n + 1) / (d + 0.5)) for tok, d in df.items()}
    _IDF[id(store)] = (store, idf)
    return idf
