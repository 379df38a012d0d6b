"""The Slack front end: a thin Bolt adapter over the shared core.

``hwbot slack`` (:mod:`bot.slack.run`) wires it together: :mod:`.settings` reads the
environment, :mod:`.app` builds the Bolt app and its WebClient, and the listeners live in
:mod:`.answering` (mentions, DMs, thread follow-ups), :mod:`.commands` (``/hwbot``) and
:mod:`.interactions` (feedback buttons, the intake modal). Rendering is in :mod:`.blocks`,
:mod:`.recommend_blocks` and :mod:`.modal`; retry safety in :mod:`.dedupe`; HTTP mode in
:mod:`.server`. Nothing here is imported by ``knowledge`` or ``indexer``.
"""
