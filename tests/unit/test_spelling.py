"""Slips of the vocabulary's words are read as the words they misspell, and nothing else moves."""

from __future__ import annotations

from knowledge.recommend.textual import profile_from_text
from knowledge.spelling import respell


def test_a_slip_of_a_vocabulary_word_is_respelt_and_maps_back() -> None:
    text = "finetuning on a singel 4090, the dataloader is the bottlenck"
    r = respell(text)
    assert r.text == "finetuning on a single 4090, the dataloader is the bottleneck"
    # positions after a longer replacement map back to the user's text
    at = r.text.index("4090")
    assert r.position(at) == text.index("4090")
    s, e = r.span(r.text.index("bottleneck"), len(r.text))
    assert text[s:e] == "bottlenck"


def test_english_words_names_and_short_words_are_left_alone() -> None:
    # "locking" is one edit from "looking", "Equinix" from "Equinox" (a JAX library), "BERTs" from "beats"
    for text in ("we are locking down the design", "our own cage at Equinix", "we serve small BERTs",
                 "we use jaxx", "thanks friends, basically nothing"):
        assert respell(text).text == text, text


def test_a_typoed_message_sets_its_fields_and_quotes_the_users_words() -> None:
    out = profile_from_text("we're finetuning a 7B llama on a singel 4090 rn, all pytroch")
    assert out.answers()["scale"] == "single_device" and out.answers()["framework"] == "pytorch"
    assert out.fields["scale"].evidence == "a singel 4090"
    assert out.fields["framework"].evidence == "pytroch"
    assert all(out.fields[f].evidence in "we're finetuning a 7B llama on a singel 4090 rn, all pytroch" for f in out.fields)


def test_trying_new_architectures_is_the_cadence_but_trying_a_framework_is_a_candidate() -> None:
    assert profile_from_text("we try a new archtecture every other day").answers().get("architecture_changes") == "often"
    assert "framework" not in profile_from_text("we tried JAX last year, it was fine").answers()
