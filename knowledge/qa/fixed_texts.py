"""The texts every question is compared with, handed to the index build to embed ahead.

An engine compares each question with the intent prototypes (:mod:`knowledge.qa.intent`)
and the curated FAQ's question forms (:mod:`knowledge.qa.curated`). They are data, fixed
until someone edits it, so ``hwbot index`` embeds them into the generation
(:mod:`indexer.query_texts`) and a cold ``hwbot ask`` reads them instead of encoding them.
Only the TOML files are read here (no model, no numpy), so asking whether the index is
fresh stays cheap.
"""

from __future__ import annotations

from knowledge.qa.curated import faq_forms
from knowledge.qa.intent import intent_data

__all__ = ["query_side_texts"]


def query_side_texts() -> list[str]:
    """Intent prototypes, then every curated FAQ form, each once, in a stable order."""
    texts = [text for spec in intent_data().intent for text in spec.prototypes]
    texts += [form for forms in faq_forms().by_question().values() for form in forms]
    return list(dict.fromkeys(texts))
