"""Finding the questions in a docs file: which shapes count, what is ignored, repeats."""

from __future__ import annotations

from pathlib import Path

from bot.commands.faq import collect_questions
from bot.faq.extract import extract_questions

REPO = Path(__file__).resolve().parents[2]


def texts(doc: str) -> list[str]:
    return [q.text for q in extract_questions(doc)[0]]


def test_headings_that_ask_are_questions_and_others_are_not():
    doc = "# Team FAQ\n\n## Can we use PyTorch on TPUs?\n\n### Installation\n\n#### Why would a TPU sit idle? ####\n"
    found, _ = extract_questions(doc)
    assert [(q.text, q.kind, q.line) for q in found] == [
        ("Can we use PyTorch on TPUs?", "heading", 3),
        ("Why would a TPU sit idle?", "heading", 7),
    ]


def test_bullet_numbered_and_task_items():
    doc = (
        "- Which frameworks run on TPUs?\n"
        "* Is a TPU cheaper than a GPU?\n"
        "+ Not a question, just a remark.\n"
        "1. How do we keep the chip busy?\n"
        "2) Where can we rent TPUs?\n"
        "- [ ] Are TPUs good for inference?\n"
        "- [x] Can we buy TPUs for our data center?\n"
        "- Is a question wrapped over two lines\n  still one question?\n"
    )
    found, _ = extract_questions(doc)
    assert [q.text for q in found] == [
        "Which frameworks run on TPUs?",
        "Is a TPU cheaper than a GPU?",
        "How do we keep the chip busy?",
        "Where can we rent TPUs?",
        "Are TPUs good for inference?",
        "Can we buy TPUs for our data center?",
        "Is a question wrapped over two lines still one question?",
    ]
    assert {q.kind for q in found} == {"item"}


def test_an_item_keeps_its_question_and_drops_a_trailing_remark():
    assert texts("- Can our PyTorch models run on a TPU? See the handbook.\n") == ["Can our PyTorch models run on a TPU?"]


def test_plain_lines_ending_in_a_question_mark():
    doc = (
        "Some context first. Is this rhetorical? Yes, and it is not a question line.\n\n"
        "We train in PyTorch.\nCan we move to TPUs?\n\n"
        "Our team uses PyTorch heavily and we wonder\nwhether TPUs would work\nfor us?\n"
    )
    found, _ = extract_questions(doc)
    assert [q.text for q in found] == [
        "Can we move to TPUs?",
        "Our team uses PyTorch heavily and we wonder whether TPUs would work for us?",
    ]
    assert [q.line for q in found] == [4, 6]
    assert {q.kind for q in found} == {"paragraph"}


def test_fenced_code_is_ignored():
    doc = (
        "```bash\n"
        "grep -c '?' train.log   # how many lines end with a question mark?\n"
        "- Is this list item inside code?\n"
        "```\n"
        "~~~~\n## Is this heading inside code?\n~~~~\n"
        "- Is a GPU more forgiving of a slow pipeline?\n"
        "  ```python\n  ok = re.match('a?', s)  # does it match?\n  ```\n"
        "```\nan unclosed fence runs to the end: is this a question?\n"
    )
    assert texts(doc) == ["Is a GPU more forgiving of a slow pipeline?"]


def test_links_keep_their_text_and_urls_are_dropped():
    doc = (
        "- [Which frameworks run on TPUs?](https://example.com/frameworks?tab=all)\n"
        "- Per https://example.com/not-a-source why would a TPU sit idle?\n"
        "- What does ![diagram](img/pod.png) a TPU pod look like [in the docs][pods]?\n"
        "see https://example.com/search?\n\n"
        "<https://example.com/ask?>\n\n"
        "[pods]: https://example.com/pods?\n"
    )
    found = texts(doc)
    assert found == [
        "Which frameworks run on TPUs?",
        "Per why would a TPU sit idle?",
        "What does diagram a TPU pod look like in the docs?",
    ]
    assert not any("http" in q or "example.com" in q for q in found)


def test_markup_comments_and_front_matter_are_not_questions():
    doc = (
        "---\ntitle: Is front matter a question?\n---\n"
        "<!-- Is a comment a question? -->\n"
        "| Is a table cell a question? | yes? |\n\n"
        "> **Q:** Why do *static* shapes matter on a `TPU`?\n"
    )
    assert texts(doc) == ["Why do static shapes matter on a TPU?"]


def test_repeated_questions_are_kept_once_in_first_position():
    doc = (
        "## Can PyTorch run on TPUs?\n"
        "- Why would a TPU sit idle?\n"
        "- can pytorch run on TPUs ?\n"
        "Can **PyTorch** run on TPUs?\n\n"
        "1. Why would a TPU sit idle?\n"
    )
    found, repeats = extract_questions(doc)
    assert [(q.text, q.line) for q in found] == [("Can PyTorch run on TPUs?", 1), ("Why would a TPU sit idle?", 2)]
    assert repeats == 3


def test_one_word_questions_are_too_short_to_answer():
    assert texts("## Why?\n\n- TPUs?\n") == []


def test_the_shipped_example_has_in_domain_and_out_of_domain_questions():
    found, repeats = collect_questions(REPO / "docs" / "example_faq.md")
    questions = [q.text for q in found]
    assert len(questions) >= 10 and repeats >= 1
    assert "Why is a GPU called a workshop and a TPU a factory?" in questions
    assert "What is the on-call rotation for the training cluster?" in questions
    assert not any("?" in q[:-1] and "grep" in q for q in questions)  # nothing from the code fence
