"""Every request must carry a valid, fresh Slack signature; anything else is a 401 and does nothing."""

from __future__ import annotations

import json
import time

import pytest

from tests.harness.slack_app import RunningBot
from tests.harness.slack_requests import event_envelope, mention


def _body() -> str:
    return json.dumps(event_envelope(mention("Where are TPUs strongest?")))


def test_a_correctly_signed_request_is_accepted(bot: RunningBot) -> None:
    assert bot.sender.raw(_body(), content_type="application/json").status == 200
    bot.fake.wait_for("chat.postMessage")


@pytest.mark.parametrize(
    "case",
    ["forged", "wrong_secret", "stale", "future", "unsigned", "tampered", "garbage_timestamp"],
)
def test_bad_or_stale_signatures_get_401_and_no_work(bot: RunningBot, case: str) -> None:
    body = _body()
    now = int(time.time())
    kwargs: dict = {}
    if case == "forged":
        kwargs["signature"] = "v0=" + "0" * 64
    elif case == "wrong_secret":
        from slack_sdk.signature import SignatureVerifier

        kwargs["signature"] = SignatureVerifier("not-the-secret").generate_signature(timestamp=str(now), body=body)
        kwargs["timestamp"] = now
    elif case == "stale":
        kwargs["timestamp"] = now - 10 * 60  # correctly signed, but replayed ten minutes later
    elif case == "future":
        kwargs["timestamp"] = now + 10 * 60
    elif case == "unsigned":
        kwargs["sign"] = False
    elif case == "tampered":
        signed = bot.sender.verifier.generate_signature(timestamp=str(now), body=body)
        body = body.replace("Where are TPUs strongest?", "<!channel> tampered")
        kwargs.update(signature=signed, timestamp=now)
    elif case == "garbage_timestamp":
        kwargs["extra_headers"] = {"X-Slack-Request-Timestamp": "yesterday"}
    reply = bot.sender.raw(body, content_type="application/json", **kwargs)
    assert reply.status == 401
    bot.wait_idle()
    assert bot.fake.calls() == []  # not even auth.test: refused before any listener


def test_a_signed_slash_command_with_a_stale_timestamp_is_refused(bot: RunningBot) -> None:
    reply = bot.sender.command("recommend", timestamp=int(time.time()) - 3600)
    assert reply.status == 401
    bot.wait_idle()
    assert not bot.fake.calls("views.open")


def test_url_verification_challenge_is_answered_when_signed(bot: RunningBot) -> None:
    body = json.dumps({"token": "legacy", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "type": "url_verification"})
    reply = bot.sender.raw(body, content_type="application/json")
    assert reply.status == 200
    assert "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in reply.body
    assert bot.sender.raw(body, content_type="application/json", signature="v0=" + "1" * 64).status == 401


def test_other_paths_and_oversized_bodies_are_refused(bot: RunningBot) -> None:
    import urllib.error
    import urllib.request

    base = bot.server.url.rsplit("/slack/events", 1)[0]
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(base + "/other", data=b"{}", method="POST"), timeout=10)
    assert err.value.code == 404
    # A body announced as too big is refused before it is read.
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", bot.server.port, timeout=10)
    conn.putrequest("POST", "/slack/events")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(50_000_000))
    conn.endheaders()
    assert conn.getresponse().status == 413
    conn.close()
    assert bot.fake.calls() == []
