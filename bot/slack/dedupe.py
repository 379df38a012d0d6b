"""Exactly-once answers on top of at-least-once delivery, across workers and restarts.

Slack redelivers an event (with ``X-Slack-Retry-Num``) when it did not see a 200 in
time, possibly to another worker, and one message can arrive twice under different
event ids (``app_mention`` and ``message.channels`` both fire for a mention in a thread
the bot follows). So a piece of work is claimed in the shared
:class:`~bot.state.StateStore` under *all* its keys, the event id and
``(channel, ts)``, before it starts:

- while the first delivery works, the claim is *in flight* and any other delivery, on
  any worker, is dropped;
- once it is *done*, duplicates are dropped for ``ttl`` (an hour; Slack retries for
  minutes);
- if the work failed before answering, the claim is *released*, so Slack's own retry
  gets a fair second try;
- in-flight claims expire after ``in_flight_ttl``, and a worker that finishes a dead
  worker's pending work takes its claims over (``steal_from``);
- while the state store is unavailable, a claim is *offline*: the work goes ahead
  (the ack was in time, so Slack does not retry) and settling it is a no-op.
"""

from __future__ import annotations

from bot.state import CLAIM_DONE, StateStore, StateUnavailable, claim_state

__all__ = ["Dedupe", "Claim", "event_keys", "DONE_TTL", "IN_FLIGHT_TTL"]

DONE_TTL = 3600.0
IN_FLIGHT_TTL = 600.0


def event_keys(event_id: str | None, channel: str | None, ts: str | None) -> list[str]:
    """The keys one delivery is known by (any may be missing in odd payloads)."""
    keys: list[str] = []
    if event_id:
        keys.append(f"event:{event_id}")
    if channel and ts:
        keys.append(f"message:{channel}:{ts}")
    return keys


class Claim:
    """The right to do one piece of work. Call :meth:`done` or :meth:`release` once."""

    def __init__(self, dedupe: "Dedupe", keys: list[str], *, offline: bool = False) -> None:
        self._dedupe = dedupe
        self.keys = keys
        self.offline = offline
        self._settled = offline

    def done(self) -> None:
        """The work happened: drop duplicates for the full TTL."""
        if not self._settled:
            self._settled = True
            try:
                self._dedupe.state.settle(self.keys, self._dedupe.owner, self._dedupe.ttl)
            except StateUnavailable:
                pass  # the in-flight claim expires on its own

    def release(self) -> None:
        """The work did not happen: let a later delivery try again."""
        if not self._settled:
            self._settled = True
            try:
                self._dedupe.state.release(self.keys, self._dedupe.owner)
            except StateUnavailable:
                pass


class Dedupe:
    """Claims for one worker (``owner``) in the shared state."""

    def __init__(self, state: StateStore, owner: str, *, ttl: float = DONE_TTL, in_flight_ttl: float = IN_FLIGHT_TTL) -> None:
        self.state = state
        self.owner = owner
        self.ttl = ttl
        self.in_flight_ttl = in_flight_ttl

    def claim(self, keys: list[str], *, steal_from: str | None = None) -> Claim | None:
        """A :class:`Claim` if no key is in flight or done elsewhere, else None.

        With no keys at all there is nothing to de-duplicate on, so the work is allowed.
        """
        try:
            if keys and not self.state.claim(keys, self.owner, self.in_flight_ttl, steal_from=steal_from):
                return None
        except StateUnavailable:
            return Claim(self, list(keys), offline=True)
        return Claim(self, list(keys))

    def is_done(self, keys: list[str]) -> bool:
        try:
            return any(claim_state(self.state.get("claim", key)) == CLAIM_DONE for key in keys)
        except StateUnavailable:
            return False
