"""The intake modal: built from ``bot/questions.toml``, parsed back into a ``WorkloadProfile``.

The modal asks exactly the questions the terminal intake asks, with the same option
labels, plus a "Not sure" option on each (it records ``unknown``). A form cannot adapt
per answer, so its inputs follow the engine's a-priori order
(:func:`knowledge.recommend.questioning.intake_order`: the gate first, then the most
informative question for an empty profile), the order the dialog starts in.
Every input is required, so "Not sure" is a deliberate answer rather than a skipped
one. The server re-validates every submitted value against ``FIELD_VALUES`` and answers
problems with ``response_action: errors`` under the offending input, since a payload
can come from a stale modal or be hand-made.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from slack_sdk.models.blocks import (
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    RadioButtonsElement,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.intake.questions import Question, Questionnaire, load_questionnaire
from common.errors import ProfileError
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile, parse_profile
from knowledge.recommend.questioning import intake_order
from knowledge.recommend.recommender import shipped_engine

if TYPE_CHECKING:
    from bot.conversation import Understood

__all__ = [
    "INTAKE_CALLBACK_ID",
    "block_id_for",
    "intake_view",
    "modal_order",
    "parse_submission",
    "FEEDBACK_CALLBACK_ID",
    "feedback_view",
    "parse_feedback",
]

INTAKE_CALLBACK_ID = "hwbot_intake"
FEEDBACK_CALLBACK_ID = "hwbot_feedback_reason"
_REASON_BLOCK = "fb_reason"
_COMMENT_BLOCK = "fb_comment"
_OPTION_TEXT_LIMIT = 75  # Slack's limit for an option's text
_ERROR_LIMIT = 150


def block_id_for(field: str) -> str:
    return f"q_{field}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _options(question: Question, not_sure: str) -> list[Option]:
    options = [Option(value=o.value, text=PlainTextObject(text=_clip(o.label, _OPTION_TEXT_LIMIT))) for o in question.options]
    options.append(Option(value=UNKNOWN, text=PlainTextObject(text=_clip(not_sure, _OPTION_TEXT_LIMIT))))
    return options


def _input(question: Question, not_sure: str, initial: str | None = None) -> InputBlock:
    options = _options(question, not_sure)
    chosen = next((o for o in options if o.value == initial), None)
    return InputBlock(
        block_id=block_id_for(question.field),
        label=PlainTextObject(text=question.prompt),
        hint=PlainTextObject(text=question.help),
        optional=False,
        element=StaticSelectElement(
            action_id=question.field,
            placeholder=PlainTextObject(text="Choose an answer"),
            options=options,
            initial_option=chosen,
        ),
    )


def modal_order(questionnaire: Questionnaire) -> list[Question]:
    """The questions in the engine's a-priori order (gate first, then most informative)."""
    return [questionnaire.by_field(f) for f in intake_order(shipped_engine())]


def _from_what_you_said(q: Questionnaire, understood: Understood) -> str:
    from bot.conversation import from_what_you_said

    said = from_what_you_said(understood, lambda f, v: q.by_field(f).label_of(v))
    return _clip(said + " Answer what remains, or correct any of it by telling me in a message.", 2900)


def intake_view(
    channel_id: str | None,
    questionnaire: Questionnaire | None = None,
    initial: WorkloadProfile | None = None,
    understood: Understood | None = None,
) -> dict[str, Any]:
    """The modal for ``views.open``; ``channel_id`` rides along in ``private_metadata``.

    ``initial`` pre-fills the answers (the card's *Refine* button): known values, and
    "Not sure" for what is unknown. ``understood`` is what the person already said in the
    conversation (:mod:`bot.conversation`): the form says so, asks only the other questions,
    and carries the known answers in ``private_metadata`` for the submission.
    """
    prefill = initial.model_dump() if initial is not None else {}
    q = questionnaire or load_questionnaire()
    known = understood.answers() if understood is not None else {}
    metadata: dict[str, Any] = {"channel": channel_id or ""}
    if known:
        metadata["known"] = known
    intro = SectionBlock(
        text=MarkdownTextObject(
            text=(
                "Answer what you know; pick *" + q.unknown.label + "* for the rest. "
                "hwbot scores GPU vs TPU from the notes and sends you the recommendation "
                "with its reasons, sources and what would change it."
            ),
            verbatim=True,
        )
    )
    if known and understood is not None:
        intro = SectionBlock(text=MarkdownTextObject(text=_from_what_you_said(q, understood), verbatim=True))
    view = View(
        type="modal",
        callback_id=INTAKE_CALLBACK_ID,
        title=PlainTextObject(text="GPU or TPU?"),
        submit=PlainTextObject(text="Recommend"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=json.dumps(metadata),
        blocks=[intro, *(_input(question, q.unknown.label, prefill.get(question.field))
                         for question in modal_order(q) if question.field not in known)],
    )
    return view.to_dict()


def _selected(values: dict[str, Any], block_id: str, action_id: str) -> Any:
    entry = values.get(block_id, {})
    if not isinstance(entry, dict):
        return None
    element = entry.get(action_id)
    if not isinstance(element, dict):
        return None
    option = element.get("selected_option")
    if not isinstance(option, dict):
        return None
    return option.get("value")


def _known(view: Any) -> dict[str, str]:
    """The answers the form did not ask (``private_metadata.known``); anything malformed is ignored."""
    try:
        meta = json.loads(view.get("private_metadata") or "{}") if isinstance(view, dict) else {}
    except (TypeError, ValueError):
        return {}
    known = meta.get("known") if isinstance(meta, dict) else None
    if not isinstance(known, dict):
        return {}
    return {f: v for f, v in known.items() if f in FIELD_VALUES and isinstance(v, str) and v in FIELD_VALUES[f]}


def parse_submission(
    view: dict[str, Any], questionnaire: Questionnaire | None = None
) -> tuple[WorkloadProfile | None, dict[str, str]]:
    """``(profile, {})`` for a valid submission, else ``(None, {block_id: message})``.

    All problems are reported at once, one per input, so the person fixes them in one go.
    """
    q = questionnaire or load_questionnaire()
    state = view.get("state") if isinstance(view, dict) else None
    values = state.get("values", {}) if isinstance(state, dict) else {}
    if not isinstance(values, dict):
        values = {}
    answers: dict[str, str] = {}
    errors: dict[str, str] = {}
    known = _known(view)
    for question in q.questions:
        block_id = block_id_for(question.field)
        if question.field in known and block_id not in values:  # said before the form: not asked
            answers[question.field] = known[question.field]
            continue
        value = _selected(values, block_id, question.field)
        if value is None or (isinstance(value, str) and not value.strip()):
            errors[block_id] = f"Pick an answer, or “{q.unknown.label}”."
        elif not isinstance(value, str) or value not in FIELD_VALUES[question.field]:
            shown = _clip(str(value), 40)
            errors[block_id] = _clip(f"“{shown}” is not one of the options; pick one from the list.", _ERROR_LIMIT)
        else:
            answers[question.field] = value
    if errors:
        return None, errors
    try:
        return parse_profile(answers, origin="intake"), {}
    except ProfileError as exc:  # belt and braces: the model is the final authority
        field = next((f for f in FIELD_VALUES if repr(f) in exc.message), q.questions[0].field)
        return None, {block_id_for(field): _clip(exc.message, _ERROR_LIMIT)}


def feedback_view(metadata: dict[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    """The small "what was wrong?" modal a *Not helpful* click opens; ``metadata`` rides along."""
    view = View(
        type="modal",
        callback_id=FEEDBACK_CALLBACK_ID,
        title=PlainTextObject(text="What was wrong?"),
        submit=PlainTextObject(text="Send"),
        close=PlainTextObject(text="Skip"),
        private_metadata=json.dumps(metadata),
        blocks=[
            InputBlock(
                block_id=_REASON_BLOCK,
                label=PlainTextObject(text="The answer…"),
                element=RadioButtonsElement(
                    action_id="reason",
                    options=[Option(value=value, text=PlainTextObject(text=label)) for value, label in reasons.items()],
                ),
            ),
            InputBlock(
                block_id=_COMMENT_BLOCK,
                label=PlainTextObject(text="Anything to add? (optional)"),
                optional=True,
                element=PlainTextInputElement(action_id="comment", multiline=True, max_length=1000),
            ),
        ],
    )
    return view.to_dict()


def parse_feedback(view: dict[str, Any], reasons: dict[str, str]) -> tuple[str | None, str, dict[str, Any]]:
    """``(reason, comment, metadata)`` from a feedback modal submission; an unknown reason is None."""
    state = view.get("state") if isinstance(view, dict) else None
    values = state.get("values", {}) if isinstance(state, dict) else {}
    if not isinstance(values, dict):
        values = {}
    reason = _selected(values, _REASON_BLOCK, "reason")
    entry = values.get(_COMMENT_BLOCK, {})
    comment = entry.get("comment", {}).get("value") if isinstance(entry, dict) and isinstance(entry.get("comment"), dict) else None
    try:
        metadata = json.loads(view.get("private_metadata") or "{}")
    except (TypeError, ValueError):
        metadata = {}
    return (
        reason if isinstance(reason, str) and reason in reasons else None,
        comment if isinstance(comment, str) else "",
        metadata if isinstance(metadata, dict) else {},
    )
