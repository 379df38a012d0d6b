"""What a request must pass before Bolt sees it, checked over the raw bytes.

Order matters: the size is checked before anything is read, the signature over the
bytes exactly as they arrived (slack_sdk's verifier decodes the body as UTF-8 first, so
any non-UTF-8 body used to crash it before the HMAC: a pre-auth 500 with a traceback),
and only a signed body is decoded and parsed. Every refusal is a status and a one-line
reason; nothing here raises.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qs

__all__ = ["Refusal", "check_signed", "check_well_formed", "MAX_BODY_BYTES", "MAX_CLOCK_SKEW"]

#: Slack payloads are a few KB; a modal submission is the largest. Anything past this is refused.
MAX_BODY_BYTES = 1_000_000
#: Slack's own rule: a timestamp more than five minutes away is a replay.
MAX_CLOCK_SKEW = 300
_MAX_HEADER = 200


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str  # for the log line: ids and sizes only, never content


def _ascii(value: bytes) -> str | None:
    if len(value) > _MAX_HEADER:
        return None
    try:
        return value.decode("ascii")
    except UnicodeDecodeError:
        return None


def check_signed(secret: bytes, raw: bytes, timestamp: bytes | None, signature: bytes | None, *, now: float | None = None) -> Refusal | None:
    """None if ``raw`` carries a valid ``v0`` signature with a fresh timestamp, else a 401."""
    stamp = _ascii(timestamp or b"")
    given = _ascii(signature or b"")
    if not stamp or not stamp.isdigit():
        return Refusal(401, "missing or malformed timestamp")
    if not given or not given.startswith("v0="):
        return Refusal(401, "missing or malformed signature")
    if abs((time.time() if now is None else now) - int(stamp)) > MAX_CLOCK_SKEW:
        return Refusal(401, "stale timestamp")
    digest = hmac.new(secret, b"v0:" + stamp.encode("ascii") + b":" + raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(f"v0={digest}", given):
        return Refusal(401, "bad signature")
    return None


def check_well_formed(raw: bytes, content_type: str) -> Refusal | None:
    """None if a signed body is something Bolt can parse: a JSON object, or a form whose payload is one."""
    try:
        text = raw.decode("utf-8")
        if "application/json" in content_type or text.lstrip().startswith("{"):
            ok = isinstance(json.loads(text), dict)
        else:
            form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text))
            payload = form.get("payload")
            ok = payload is None or isinstance(json.loads(payload[0]), dict)
    except (UnicodeDecodeError, ValueError):
        ok = False
    return None if ok else Refusal(400, f"malformed signed body ({len(raw)} bytes)")
