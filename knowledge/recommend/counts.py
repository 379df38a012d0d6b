"""Device counts said in a message, read as the profile's scale.

"8 GPUs", "8x H100", "2k H100s", "4,096 TPU v5p chips", "two nodes", "a couple thousand H100s",
"2 TPU v4 pods", "v5p-512": a number (digits, or words from the vocabulary's ``[numbers]``, times
a ``[multipliers]`` word), a few words that describe the unit, and the unit. Rules are right here:
a count is an entity, and its thresholds (``[counts]`` in vocabulary.toml) are the profile's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Counts", "Hit", "count_hits", "count_patterns", "not_devices_pattern"]

#: (field, value, start, end, confidence) of one match in the message
Hit = tuple[str, str, int, int, float]


class Counts(BaseModel):
    """The units counted and the thresholds that turn a count into a scale."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    units: str
    single_max: int = Field(ge=1)
    massive_min: int = Field(ge=2)
    node_units: str
    node_massive_min: int = Field(ge=2)
    pod_units: str
    not_between: str
    slice: str
    confidence: float = Field(gt=0.0, le=1.0)
    #: people counted ("8 ML engineers", "a team of 4 devs"): a count, but of the team, never of devices
    people_units: str = "(?!)"
    #: other numbers that count no devices: versions ("TF 1.x", "CUDA 12.1"), batch sizes ("batch size 512")
    not_devices: str = "(?!)"
    #: the words of "one GPU box": a single node named by the one GPU it holds
    one_gpu_node: str = "(?!)"


def count_patterns(c: Counts, numbers: Mapping[str, int], multipliers: Mapping[str, int]) -> list[re.Pattern[str]]:
    """The compiled count patterns: a number before its unit, a labelled line, a TPU slice."""
    words = _number_words(numbers)
    units = f"(?P<pod>{c.pod_units})|(?P<device>{c.units})|(?P<node>{c.node_units})"
    # Not a version ("PyTorch 2.3 on H100s", "CUDA 12 on our A100s"): no decimals, and the words
    # between the number and the unit describe the unit; they are no preposition or determiner.
    between = rf"(?:(?!(?:{c.not_between})\b|\d)[\w-]+\s+)"
    times = "|".join(sorted((re.escape(w) for w in multipliers), key=len, reverse=True)) or "(?!)"
    # not "ZeRO-3", not "2.3"; "a couple thousand", "3 hundred": the multiplier is part of the number
    # (thousands grouped by commas, "4,096": "batch size 512, one A100" is 512 and one, never 512,)
    digits = r"(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?![\d,]))k?"
    number = rf"(?<![\d.,-])\b(?P<n>{digits}|{words})(?![.\d])(?:\s+(?:of\s+)?(?P<times>{times})\b)?"
    # after a label, a number word ends its item: in "400 GPUs: one trains the models, the other
    # serves them" the "one" after the colon is a pronoun, not a count of one GPU
    listed = rf"(?<![\d.,-])\b(?P<n>{digits}|(?:{words})(?=\s*(?:$|[,;.)\n])))(?![.\d])(?:\s+(?:of\s+)?(?P<times>{times})\b)?"
    return [
        re.compile(rf"{number}\+?(?:\s*x\s*|\s+of\s+|\s+|-){between}{{0,2}}(?:{units})\b", re.IGNORECASE),
        re.compile(rf"\b(?:{units})\s*[:=]\s*~?{listed}", re.IGNORECASE),  # a list: "- gpus: 16"
        re.compile(c.slice, re.IGNORECASE),  # a TPU slice: "v5p-512"
    ]


def _number_words(numbers: Mapping[str, int]) -> str:
    """The vocabulary's number words as one alternation, longest first ("twenty four" before "twenty")."""
    return "|".join(sorted((re.escape(w.replace("_", " ")) for w in numbers), key=len, reverse=True))


def not_devices_pattern(c: Counts, numbers: Mapping[str, int]) -> re.Pattern[str]:
    """Numbers that count no devices: people ("8 ML engineers", "three researchers": a number, at most
    two words, then a person word; a count of the team) and the vocabulary's ``not_devices`` (a
    version, a batch size). A reader of meaning takes such a number for devices."""
    people = rf"(?<![\d.,-])\b(?:\d+|{_number_words(numbers)})\s+(?:[\w-]+\s+){{0,2}}?(?:{c.people_units})\b"
    return re.compile(rf"{people}|{c.not_devices}", re.IGNORECASE)


def count_hits(
    text: str, c: Counts, numbers: Mapping[str, int], multipliers: Mapping[str, int], patterns: list[re.Pattern[str]],
) -> list[Hit]:
    """Every count in ``text`` as a scale match."""
    hits: list[Hit] = []
    nodes: list[tuple[int, int, int]] = []  # (count, start, end) of node counts
    devices: list[tuple[int, int, int]] = []  # (count, start, end) of device counts
    for m in (m for pattern in patterns for m in pattern.finditer(text)):
        raw = m.group("n").lower().replace(",", "")
        thousands = raw.endswith("k") and raw[:-1].isdigit()
        n = int(raw[:-1]) * 1000 if thousands else int(raw) if raw.isdigit() else numbers.get(raw.replace(" ", "_"), 0)
        if n <= 0:
            continue
        n *= multipliers.get((m.groupdict().get("times") or "").lower(), 1)
        if m.groupdict().get("pod"):  # pods are the big machines: any number of them is massive
            value = "massive"
        elif m.groupdict().get("node") or ("-" not in m.group(0) and _node_after(c.node_units).match(text, m.end())):
            # a node holds several accelerators: one node is already multi-device ("one p4d box", "one
            # big box"; "a single-GPU box" counts GPUs), unless it is named by its one GPU ("one GPU
            # box", "a single 4090 box"); "one GPU server with 2 cards" is 2 (the device count wins below)
            one_gpu = n == 1 and _one_gpu(c.one_gpu_node).search(m.group(0)) is not None
            value = "single_device" if one_gpu else "massive" if n >= c.node_massive_min else "multi_device"
            nodes.append((n, m.start(), m.end()))
        else:
            value = _by_devices(n, c)
            devices.append((n, m.start(), m.end()))
        hits.append(("scale", value, m.start(), m.end(), c.confidence))
    return _per_node(text, hits, nodes, devices, c)


@lru_cache(maxsize=4)
def _node_after(node_units: str) -> re.Pattern[str]:
    return re.compile(rf"\s+(?:{node_units})\b", re.IGNORECASE)


@lru_cache(maxsize=4)
def _one_gpu(one_gpu_node: str) -> re.Pattern[str]:
    """The unit words of a node count of one that name the node's single GPU ("one GPU box", "a
    single GPU dev box")."""
    return re.compile(rf"\s(?:{one_gpu_node})(?:\s+\S+){{0,2}}$", re.IGNORECASE)


def _by_devices(n: int, c: Counts) -> str:
    return "single_device" if n <= c.single_max else "massive" if n >= c.massive_min else "multi_device"


#: what may sit between a node count and the devices each node holds: "64 nodes of 8 GPUs", "40 nodes
#: with 8 gpus each", "4 hosts x 8 H100" (not a comma: "4 nodes, 8 GPUs" may be the total)
_PER_NODE_GAP = re.compile(r"\s*(?:of|x|\u00d7|with)\s*(?:each\s+with\s+)?$", re.IGNORECASE)


def _per_node(text: str, hits: list[Hit], nodes: list[tuple[int, int, int]], devices: list[tuple[int, int, int]], c: Counts) -> list[Hit]:
    """A node count followed by the devices of each node is one count, their product: "64 nodes of 8
    GPUs" is 512 GPUs, not a massive count and a multi-device one to choose between."""
    for n_nodes, n_start, n_end in nodes:
        for n_dev, d_start, d_end in devices:
            if d_start >= n_end and _PER_NODE_GAP.match(text[n_end:d_start]):
                hits = [h for h in hits if (h[2], h[3]) not in ((n_start, n_end), (d_start, d_end))]
                hits.append(("scale", _by_devices(n_nodes * n_dev, c), n_start, d_end, c.confidence))
                break
    if devices:
        # "1 box, 1 gpu": one node is multi-device only for want of a device count; with one, the
        # devices say what it holds
        hits = [h for h in hits if not any(n == 1 and (h[2], h[3]) == (s, e) for n, s, e in nodes)]
    return hits

