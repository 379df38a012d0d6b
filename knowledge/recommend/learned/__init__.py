"""The learned extractor: clause heads over the shipped encoder's vectors, next to the rules.

- :mod:`.clauses` cuts a message into clauses; :mod:`.data` loads the labelled clauses and
  their fixed train / validation / test split;
- :mod:`.train` fits the heads (``hwbot train-extractor``), :mod:`.heads` loads them as checked
  data (``data/extractor/``);
- :mod:`.combine` reads a message with the rules and the heads together, with a confidence
  the user sees (set, ask yes/no, or leave open).

Unlike the rest of :mod:`knowledge.recommend`, this needs numpy (and the ONNX encoder, which
the caller passes in); nothing else in the package imports it.
"""
