"""Slack's retries (X-Slack-Retry-Num) and twin deliveries never produce a second answer."""

from __future__ import annotations

import pytest

from bot.slack.dedupe import DedupeStore, event_keys
from tests.harness.slack_app import GatedCore, RunningBot, wait_for_log
from tests.harness.slack_requests import event_envelope, mention, message

QUESTION = "Where are TPUs strongest?"


def test_a_retry_after_the_answer_is_not_answered_again(bot: RunningBot) -> None:
    envelope = event_envelope(mention(QUESTION))
    assert bot.sender.event_envelope_json(envelope).status == 200
    bot.fake.wait_for("chat.postMessage")
    retry = bot.sender.event_envelope_json(envelope, extra_headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert retry.status == 200  # acknowledged, so Slack stops retrying
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


def test_a_retry_while_the_first_delivery_is_in_flight_is_dropped(start_bot, engine_core, hwbot_logs) -> None:  # type: ignore[no-untyped-def]
    gate = GatedCore(engine_core)
    bot: RunningBot = start_bot(core=gate)
    envelope = event_envelope(mention(QUESTION))
    try:
        bot.sender.event_envelope_json(envelope)
        assert gate.entered.wait(30), "the first delivery never reached the engine"
        for n in (1, 2):
            reply = bot.sender.event_envelope_json(envelope, extra_headers={"X-Slack-Retry-Num": str(n)})
            assert reply.status == 200
        wait_for_log(hwbot_logs, "ignored a duplicate mention delivery")
        assert not bot.fake.calls("chat.postMessage")  # still in flight: nothing posted yet
    finally:
        gate.release.set()
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


def test_one_message_under_two_event_ids_is_answered_once(bot: RunningBot) -> None:
    event = message(QUESTION, channel="DDIRECT01", channel_type="im")
    bot.sender.event(event, event_id="Ev0000A")
    bot.sender.event(event, event_id="Ev0000B")
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


def test_a_retry_after_a_failed_attempt_answers_once(bot: RunningBot) -> None:
    # The first attempt cannot post (Slack has a bad moment); Slack's retry must still get an answer.
    bot.fake.fail_next("chat.postMessage", status=500, error="internal_error", retry_after=None)
    envelope = event_envelope(mention(QUESTION))
    bot.sender.event_envelope_json(envelope)
    bot.wait_idle()
    assert not bot.fake.calls("chat.postMessage", ok_only=True)
    bot.sender.event_envelope_json(envelope, extra_headers={"X-Slack-Retry-Num": "1"})
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage", ok_only=True)) == 1


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_dedupe_store_states_and_ttls() -> None:
    clock = FakeClock()
    store = DedupeStore(ttl=60, in_flight_ttl=10, clock=clock)
    keys = event_keys("Ev1", "C1", "1.0")
    assert keys == ["event:Ev1", "message:C1:1.0"]

    claim = store.claim(keys)
    assert claim is not None
    assert store.claim(["event:Ev1"]) is None  # in flight
    assert store.claim(["message:C1:1.0", "event:Ev2"]) is None  # same message, other event id
    claim.done()
    assert store.state("event:Ev1") == "done"
    clock.now += 59
    assert store.claim(keys) is None
    clock.now += 2
    assert store.claim(keys) is not None  # TTL expired


def test_released_and_stale_in_flight_claims_free_the_keys() -> None:
    clock = FakeClock()
    store = DedupeStore(ttl=60, in_flight_ttl=10, clock=clock)
    first = store.claim(["event:Ev1"])
    assert first is not None
    first.release()
    second = store.claim(["event:Ev1"])
    assert second is not None
    first.done()  # a settled claim cannot overwrite the new owner
    assert store.state("event:Ev1") == "in_flight"
    clock.now += 11  # the worker died: the in-flight claim expires
    assert store.claim(["event:Ev1"]) is not None


@pytest.mark.parametrize("size", [3])
def test_dedupe_store_is_bounded_but_keeps_in_flight_work(size: int) -> None:
    store = DedupeStore(max_entries=size)
    in_flight = store.claim(["event:keep"])
    assert in_flight is not None
    for n in range(10):
        claim = store.claim([f"event:{n}"])
        assert claim is not None
        claim.done()
    assert len(store) <= size
    assert store.state("event:keep") == "in_flight"


def _burst(bot: RunningBot, envelopes: list[dict], retry_num: int | None = None) -> list[int]:
    """Send all envelopes at the same instant from one thread each; return the HTTP statuses."""
    import threading

    statuses: list[int] = [0] * len(envelopes)
    barrier = threading.Barrier(len(envelopes))
    extra = {"X-Slack-Retry-Num": str(retry_num)} if retry_num is not None else None

    def send(i: int) -> None:
        barrier.wait()
        try:
            statuses[i] = bot.sender.event_envelope_json(envelopes[i], extra_headers=extra).status
        except OSError:
            statuses[i] = -1  # reset or refused at the socket level

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(envelopes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return statuses


def test_a_burst_and_its_retries_are_all_acked_and_each_answered_once(bot: RunningBot) -> None:
    envelopes = [event_envelope(mention(QUESTION, channel="CBURST001")) for _ in range(48)]
    assert _burst(bot, envelopes) == [200] * 48  # no connection is reset, however many arrive at once
    assert _burst(bot, envelopes, retry_num=1) == [200] * 48
    bot.fake.wait_for("chat.postMessage", 48, timeout=120)
    bot.wait_idle()
    threads = [c.body["thread_ts"] for c in bot.fake.calls("chat.postMessage", ok_only=True)]
    assert sorted(threads) == sorted(e["event"]["ts"] for e in envelopes)  # each once, none lost
