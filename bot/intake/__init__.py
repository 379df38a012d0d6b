"""The frontend-agnostic intake: questions as data (``questions``), the adaptive dialog
(``dialog``), its state and store (``state``, ``persistence``), the session loop (``session``).

Import from the module that owns a name. The package re-exports nothing: nobody imported
through it, and importing it pulled the dialog, both state stores and the decision model
into every process that only needed the questionnaire (a cold ``hwbot ask`` renders with it).

Which question comes next is not decided here: :mod:`knowledge.recommend.questioning` picks it.
"""
