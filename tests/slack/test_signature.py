"""Every request must carry a valid, fresh Slack signature; anything else is a 401 and does nothing."""

from __future__ import annotations

import json
import time

import pytest

from tests.harness.slack_requests import event_envelope, mention
from tests.slack.conftest import RunningBot


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


@pytest.mark.parametrize(
    "case", ["latin1_body", "binary_body", "non_ascii_signature", "missing_timestamp", "stale_binary", "valid_sig_on_binary"]
)
def test_pre_auth_bytes_of_any_kind_get_one_401_line_and_no_traceback(bot: RunningBot, hwbot_logs, case: str) -> None:  # type: ignore[no-untyped-def]
    """The signature is checked over the raw bytes: a body that is not UTF-8 used to crash the check (a 500)."""
    import hashlib
    import hmac
    import urllib.error
    import urllib.request

    from tests.slack.conftest import SIGNING_SECRET

    now = str(int(time.time()))
    body = {"latin1_body": "caf\xe9 {}".encode("latin-1"), "binary_body": bytes(range(256)), "stale_binary": b"\xff\xfe\x00",
            "valid_sig_on_binary": b"\xff\xfe{}", "non_ascii_signature": b"{}", "missing_timestamp": b"\x80{}"}[case]
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=" + "1" * 64}
    if case == "non_ascii_signature":
        headers["X-Slack-Signature"] = "v0=\u00e9\u00e9"
    elif case == "missing_timestamp":
        del headers["X-Slack-Request-Timestamp"]
    elif case == "stale_binary":
        headers["X-Slack-Request-Timestamp"] = str(int(now) - 3600)
    elif case == "valid_sig_on_binary":  # a secret-holder's malformed body: past auth, so a 400
        headers["X-Slack-Signature"] = "v0=" + hmac.new(SIGNING_SECRET.encode(), b"v0:" + now.encode() + b":" + body, hashlib.sha256).hexdigest()
    request = urllib.request.Request(bot.sender.url, data=body, headers={k: v.encode("utf-8").decode("latin-1") for k, v in headers.items()},
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            status = resp.status
    except urllib.error.HTTPError as err:
        status = err.code
    assert status == (400 if case == "valid_sig_on_binary" else 401)
    ours = [r for r in hwbot_logs.records if r.name.startswith("hwbot") and r.levelno >= 30]
    assert len(ours) == 1 and "refused a request" in ours[0].getMessage()
    assert not any(r.exc_info for r in hwbot_logs.records), "no traceback for pre-auth bytes"
    bot.wait_idle()
    assert bot.fake.calls("chat.postMessage") == []
