"""The Slack front end: a thin Bolt adapter over the shared engine and the shared state.

``hwbot slack`` (:mod:`bot.slack.run`) wires it together: :mod:`.settings` reads the
Slack credentials, :mod:`.runtime` holds what every listener shares (the engine and the
:mod:`bot.state` store), :mod:`.app` builds the Bolt app and its WebClient. The
listeners live in :mod:`.answering` (mentions, DMs, thread follow-ups), :mod:`.assistant`
(Slack's assistant pane), :mod:`.commands` (``/hwbot``), :mod:`.interactions` (feedback,
"Ask the experts", the intake modal) and :mod:`.card` (the recommendation card's what-if
menus). :mod:`.replies` turns a question into a posted answer. Rendering is in
:mod:`.blocks`, :mod:`.recommend_blocks` and :mod:`.modal`; exactly-once delivery in
:mod:`.dedupe` and :mod:`.durable`; HTTP mode in :mod:`.server` (gunicorn's asyncio
ASGI worker), :mod:`.front` (the ASGI app) and :mod:`.gate` (checks over raw bytes). Nothing here is imported by ``knowledge`` or ``indexer``.
"""
