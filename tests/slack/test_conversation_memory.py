"""A Slack conversation that remembers: a situational DM, then ``/hwbot recommend`` starts from it,
and a correction ("no, we're on Azure") updates the field. End to end on loopback."""

from __future__ import annotations

import json

from bot.slack.recommend_blocks import KIND_NAMES
from knowledge.recommend.profile import parse_profile
from knowledge.recommend.recommender import recommend
from tests.harness.slack_requests import message, select_state, view_submission
from tests.slack.conftest import RunningBot, block_texts, blocks_of

DM = "DDIRECT01"
SITUATION = ("We're a JAX shop on Google Cloud; the model has been frozen for a year and we train it "
             "on 512 TPU v5p chips. Should we move to TPUs?")


def _posted(bot: RunningBot, n: int) -> str:
    body = bot.fake.wait_for("chat.postMessage", count=n)[n - 1].body
    return "\n".join(block_texts(blocks_of(body))) or str(body.get("text"))


def _modal(bot: RunningBot, n: int) -> dict:
    bot.sender.command("recommend", channel=DM)
    return bot.fake.wait_for("views.open", count=n)[n - 1].body["view"]


def test_a_dm_then_recommend_asks_only_what_remains_and_a_correction_updates_it(bot: RunningBot) -> None:
    bot.sender.event(message(SITUATION, channel=DM, channel_type="im"))
    first = _posted(bot, 1)
    assert "Recommendation:" in first and "implied: stage stabilizing" in first

    view = _modal(bot, 1)
    asked = [b["element"]["action_id"] for b in view["blocks"] if b["type"] == "input"]
    intro = view["blocks"][0]["text"]["text"]
    assert intro.startswith("From what you said:") and 'cloud = Google Cloud ("Google Cloud")' in intro
    assert "implied: stage = Stabilizing" in intro
    for said in ("cloud", "framework", "scale", "workload", "architecture_changes", "stage", "team_expertise"):
        assert said not in asked, said
    assert asked and set(asked) <= {"custom_kernels", "optimization_time", "data_pipeline", "priority"}
    known = json.loads(view["private_metadata"])["known"]
    assert known["cloud"] == "google_cloud" and known["stage"] == "stabilizing"

    # the person corrects a field in the conversation
    bot.sender.event(message("no, we're on Azure", channel=DM, channel_type="im"))
    correction = _posted(bot, 2)
    assert "Updated cloud:" in correction.replace("*", "")
    assert 'google cloud -&gt; other single cloud (you wrote "Azure")' in correction  # mrkdwn escapes ">"

    view = _modal(bot, 2)
    intro = view["blocks"][0]["text"]["text"]
    assert "cloud = One other cloud" in intro
    # submitting the remaining answers scores everything said plus what was answered
    answers = {b["element"]["action_id"]: b["element"]["options"][0]["value"]
               for b in view["blocks"] if b["type"] == "input"}
    submission = view_submission(select_state(answers), channel=DM)
    submission["view"]["private_metadata"] = view["private_metadata"]
    assert bot.sender.interactive(submission).body == ""
    card = bot.fake.wait_for("chat.postMessage", count=3)[2].body
    text = "\n".join(block_texts(blocks_of(card)))
    expected = recommend(parse_profile({**json.loads(view["private_metadata"])["known"], **answers}))
    assert f"Recommendation: {KIND_NAMES[expected.recommendation]}" in text


def test_someone_else_in_the_channel_starts_from_nothing(bot: RunningBot) -> None:
    bot.sender.event(message(SITUATION, channel=DM, channel_type="im"))
    _posted(bot, 1)
    bot.sender.command("recommend", channel=DM, user="UOTHER002")
    view = bot.fake.wait_for("views.open")[0].body["view"]
    assert "From what you said" not in json.dumps(view)
    assert "known" not in json.loads(view["private_metadata"])


def test_a_dm_not_in_english_is_answered_in_english_and_offers_the_intake(bot: RunningBot) -> None:
    bot.sender.event(message("Wir trainieren ein großes Modell mit JAX auf TPUs.", channel=DM, channel_type="im"))
    text = _posted(bot, 1)
    assert "I read English only" in text and "intake" in text
