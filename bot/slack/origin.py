"""Where an answer id or a card id was issued, so a click elsewhere cannot act on it.

A button carries only an id; the stored answer or profile behind it is re-rendered into
whatever message the click names. So each id is stored with its *origin*: the channel
and message it was posted as (bound right after ``chat.postMessage`` returns), and, for a
card, the person it was made for. A click is acted on only when its payload names the
same channel and message (and, for a card, the same person). An answer sent
ephemerally has no message ts; its clicks must come from an ephemeral container in the
same channel. Anything else gets :data:`ELSEWHERE` and changes nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["Origin", "ELSEWHERE", "clicked_from", "posted_origin"]

ELSEWHERE = "This belongs to another conversation, so nothing was changed."


class Origin(BaseModel):
    channel: str = ""
    ts: str = ""
    user: str = ""

    def allows(self, body: dict[str, Any], *, same_user: bool) -> bool:
        """Whether a click payload comes from this origin."""
        channel, ts, user, ephemeral = clicked_from(body)
        if not self.channel or channel != self.channel:
            return False
        if (ts != self.ts) if self.ts else not ephemeral:
            return False
        return not same_user or not self.user or user == self.user

    def settled(self, body: dict[str, Any]) -> "Origin":
        """This origin, with the message a click names when the binding has not been stored yet.

        The message's ``ts`` is known only once ``chat.postMessage`` returns, and it is stored just
        after; a quick click (or a loaded worker) can arrive in between. A click from a message (not
        an ephemeral one) in this channel by the person the id was issued to names that message
        itself, so it stands in for the binding. Anything else is judged as before."""
        if self.ts:
            return self
        channel, ts, user, ephemeral = clicked_from(body)
        if ephemeral or not ts or not self.channel or channel != self.channel or not self.user or user != self.user:
            return self
        return self.model_copy(update={"ts": ts})


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def clicked_from(body: dict[str, Any]) -> tuple[str, str, str, bool]:
    """``(channel, message ts, user, ephemeral)`` named by an interactive payload."""
    def part(name: str) -> dict[str, Any]:
        value = body.get(name)
        return value if isinstance(value, dict) else {}

    container, channel_obj, message, user = part("container"), part("channel"), part("message"), part("user")
    channel = _str(container.get("channel_id")) or _str(channel_obj.get("id"))
    ts = _str(container.get("message_ts")) or _str(message.get("ts"))
    return channel, ts, _str(user.get("id")), bool(container.get("is_ephemeral"))


def posted_origin(posted: dict[str, Any], fallback_channel: str) -> tuple[str, str]:
    """``(channel, ts)`` of a ``chat.postMessage`` response (a DM to a user id lands in a D… channel)."""
    return _str(posted.get("channel")) or fallback_channel, _str(posted.get("ts"))
