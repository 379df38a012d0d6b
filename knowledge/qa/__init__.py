"""The question engine: hygiene, hybrid retrieval, curated FAQ matching, extractive answers, abstention.

It never imports the recommendation package; callers that need both join them above (bot.advice).

There is no package-level export list: callers import from the module that owns a name
(``knowledge.qa.service.QAEngine``, ``knowledge.qa.answers.Answer``), so importing one
light module (a type, a loader) never pulls in FAISS, BM25 and numpy with the engine.
"""
