"""A 429 from the Web API is retried after Retry-After (slack_sdk's RateLimitErrorRetryHandler)."""

from __future__ import annotations

from bot.slack.app import RATE_LIMIT_RETRIES
from tests.harness.slack_app import RunningBot
from tests.harness.slack_requests import mention


def test_a_rate_limited_answer_is_retried_and_posted_once(bot: RunningBot) -> None:
    bot.fake.fail_next("chat.postMessage", status=429, retry_after=1)
    event = mention("Where are TPUs strongest?")
    bot.sender.event(event)
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()
    attempts = bot.fake.calls("chat.postMessage")
    assert [c.status for c in attempts] == [429, 200]
    assert attempts[0].body == attempts[1].body  # the same message, re-sent
    assert attempts[1].at - attempts[0].at >= 1.0  # Retry-After was honoured
    assert attempts[1].body["thread_ts"] == event["ts"]


def test_rate_limits_on_other_calls_are_retried_too(bot: RunningBot) -> None:
    bot.fake.fail_next("reactions.add", status=429, retry_after=0)
    bot.fake.fail_next("views.open", status=429, retry_after=0)
    bot.sender.event(mention("Where are TPUs strongest?"))
    bot.sender.command("recommend")
    bot.fake.wait_for("views.open")
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()
    assert [c.status for c in bot.fake.calls("reactions.add")] == [429, 200]
    assert [c.status for c in bot.fake.calls("views.open")] == [429, 200]


def test_persistent_rate_limiting_gives_up_without_a_duplicate(bot: RunningBot) -> None:
    bot.fake.fail_next("chat.postMessage", status=429, retry_after=0, times=RATE_LIMIT_RETRIES + 1)
    bot.sender.event(mention("Where are TPUs strongest?"))
    bot.wait_idle()
    statuses = [c.status for c in bot.fake.calls("chat.postMessage")]
    assert statuses == [429] * (RATE_LIMIT_RETRIES + 1)
