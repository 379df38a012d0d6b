"""The decision engine: gate -> fit -> readiness -> the decision table, over profile signatures.

Why signatures: every answer contributes, independently of the others, some fit points and
some *atoms* (the blocker conditions it satisfies, as bits), so a profile's decision is a
function of three small numbers: the known fit (capped at the high threshold), the atoms of
the known answers, and the atoms an unknown answer *could* add. That makes the engine

* exact: confidence is the prior-weighted share of completions of the unknown answers that
  keep the verdict, computed by convolving the per-field distributions (no sampling);
* fast: one profile is a handful of dict lookups, and :func:`Engine.decide_signature` is
  memoized, so ``hwbot recommend`` stays well under a second without NumPy;
* checkable: the monotonicity test walks all 6,144,000 profiles through this same code.

Partial profiles: an unknown answer adds no atoms, but if its worst value would add a
blocker the readiness is ``pending``. Toward the fit level it adds its *expected* points
under the priors (``unknown_fit = "expected"``; 0, the worst, with ``"worst"``): a team that
says "a 70B model in JAX on a pod, the architecture is frozen" and nothing about its priority
describes a TPU-shaped workload, and reading the unsaid priority as the worst answer would
call that fit medium. A plain ``tpu`` still needs the fit the known answers establish on
their own (else the verdict is the staged one for a high fit, GPU for a medium one) and no
unknown that could block.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN
from knowledge.recommend.recommendation import VERDICTS
from knowledge.recommend.rules import Blocker, Far, RuleSet

__all__ = ["Engine", "Signature", "Verdict", "engine_for", "entropy", "share"]

#: (fit of the known answers capped at fit_high, atoms of the known answers, atoms unknown
#: answers could add beyond those, fit the unknown answers are expected to add, capped so the
#: sum stays within fit_high); the decision reads nothing else
Signature = tuple[int, int, int, int]
_State = tuple[int, int]
#: The merged state of completions that decide ``gpu`` whatever else is answered.
_GPU: _State = (-1, 0)


@dataclass(frozen=True)
class Verdict:
    """What the table decided and why: the three stages, and the blockers that hold."""

    kind: str
    fit: str
    readiness: str  # ready | pending | fixable | far | gated
    blockers: tuple[Blocker, ...]
    fars: tuple[Far, ...]
    #: blockers that some unknown answer could still add
    possible: tuple[Blocker, ...]


def entropy(dist: Mapping[str, float]) -> float:
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)


@dataclass
class Engine:
    """A rule set compiled to per-answer contributions, with memo tables."""

    rules: RuleSet
    fit: dict[str, dict[str, int]] = field(default_factory=dict)
    atoms: dict[str, dict[str, int]] = field(default_factory=dict)
    #: field -> atoms its worst value sets: what an unknown answer could add
    could: dict[str, int] = field(default_factory=dict)
    #: field -> fit points an unknown answer is expected to add (0 under ``unknown_fit = "worst"``)
    guess: dict[str, int] = field(default_factory=dict)
    blocker_masks: list[tuple[Blocker, int]] = field(default_factory=list)
    far_masks: list[tuple[Far, int]] = field(default_factory=list)
    _decided: dict[Signature, Verdict] = field(default_factory=dict)
    _spread: dict[frozenset[str], dict[_State, float]] = field(default_factory=dict)
    _dists: dict[tuple[int, int, frozenset[str]], dict[str, float]] = field(default_factory=dict)
    _absorbs: dict[int, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        bits: dict[tuple[str, frozenset[str]], int] = {}

        def mask_of(when: Mapping[str, tuple[str, ...]]) -> int:
            m = 0
            for f, values in when.items():
                m |= bits.setdefault((f, frozenset(values)), 1 << len(bits))
            return m

        self.blocker_masks = [(b, mask_of(b.when)) for b in sorted(self.rules.blockers, key=lambda b: b.rank)]
        ids = {b.id: m for b, m in self.blocker_masks}
        self.far_masks = [(f, mask_of(f.when) | _or(ids[b] for b in f.all)) for f in self.rules.fars]
        cap = self.rules.decision.fit_high
        for f, values in FIELD_VALUES.items():
            self.fit[f] = {v: 0 for v in values}
            self.atoms[f] = {v: 0 for v in values}
            for v in values:
                if v == UNKNOWN:
                    continue
                factor = self.rules.factor_for(f, v)
                self.fit[f][v] = min(cap, factor.fit if factor else 0)
                self.atoms[f][v] = _or(bit for (bf, vs), bit in bits.items() if bf == f and v in vs)
            self.could[f] = self.atoms[f][self.rules.order[f][-1]]
            expected = sum(q * self.fit[f][v] for v, q in self.rules.priors[f].items())
            self.guess[f] = math.floor(expected + 1e-9) if self.rules.decision.unknown_fit == "expected" else 0

    # --- one profile -------------------------------------------------------------
    def signature(self, answers: Mapping[str, str]) -> Signature:
        fit = atoms = could = guess = 0
        for f in FIELD_VALUES:
            v = answers.get(f, UNKNOWN)
            if v == UNKNOWN:
                could |= self.could[f]
                guess += self.guess[f]
            else:
                fit += self.fit[f][v]
                atoms |= self.atoms[f][v]
        cap = self.rules.decision.fit_high
        fit = min(fit, cap)
        return (fit, atoms, could & ~atoms, min(guess, cap - fit))

    def fit_level(self, fit: int) -> str:
        d = self.rules.decision
        return "high" if fit >= d.fit_high else "medium" if fit >= d.fit_medium else "low"

    def decide_signature(self, sig: Signature) -> Verdict:
        """The decision table applied to one signature (memoized: the space is small)."""
        hit = self._decided.get(sig)
        if hit is not None:
            return hit
        fit, atoms, could, guess = sig
        fired = tuple(b for b, m in self.blocker_masks if m & atoms == m)
        possible = tuple(b for b, m in self.blocker_masks if m & atoms != m and m & (atoms | could) == m)
        fars = tuple(f for f, m in self.far_masks if m & atoms == m)
        level = self.fit_level(fit + guess)
        if any(b.kind == "gate" for b in fired):
            readiness, kind = "gated", "gpu"
        else:
            if fars or any(b.kind == "far" for b in fired):
                readiness = "far"
            elif fired:
                readiness = "fixable"
            elif possible:
                readiness = "pending"
            else:
                readiness = "ready"
            kind = self.rules.table[(level, readiness)]
            if kind == "tpu" and self.rules.table[(self.fit_level(fit), readiness)] != "tpu":
                # the TPU fit is expected, not yet established by answers: staged when the fit
                # is high, and a medium fit is worth a TPU only when fully ready (the table)
                kind = "gpu_then_tpu" if level == "high" else "gpu"
        verdict = Verdict(kind, level, readiness, fired, fars, possible)
        self._decided[sig] = verdict
        return verdict

    def decide(self, answers: Mapping[str, str]) -> Verdict:
        """The table's verdict, kept between the lower and upper median of the completions.

        With unknown answers the table reads what is known plus what is expected; when most
        completions of the unknowns would decide otherwise (a workload that only fits a TPU
        if the unsaid cloud turns out to be Google's), the verdict moves to the median, so
        the answer is the one the likely completions share. It never rises to ``tpu`` unless
        the table says so (``tpu`` needs no unknown that could block). Every completion's
        verdict is monotone, so its medians are, and so is this clamp of monotone functions.
        """
        verdict = self.decide_signature(self.signature(answers))
        if all(answers.get(f, UNKNOWN) != UNKNOWN for f in FIELD_VALUES):
            return verdict
        low, high = _medians(self.verdict_distribution(answers))
        rank = _RANK[verdict.kind]
        kind = _KINDS[min(max(rank, low), high, max(rank, _RANK["gpu_then_tpu"]))]
        if kind == "gpu_then_tpu" and verdict.fit != "high":
            kind = "gpu"  # the staged path is for a high fit only (the table)
        return verdict if kind == verdict.kind else replace(verdict, kind=kind)

    # --- completions of the unknown answers -------------------------------------
    def _absorbing(self, atoms: int) -> bool:
        """Atoms that decide ``gpu`` whatever else is answered (a gate or a far combination)."""
        hit = self._absorbs.get(atoms)
        if hit is None:
            hit = any(b.kind in ("gate", "far") and m & atoms == m for b, m in self.blocker_masks) or any(
                m & atoms == m for _, m in self.far_masks
            )
            self._absorbs[atoms] = hit
        return hit

    def spread(self, unknown: Iterable[str]) -> dict[_State, float]:
        """Distribution of (fit, atoms) over the completions of ``unknown`` under the priors.

        States that already decide ``gpu`` for any completion (a closed gate, a far
        combination: adding answers only adds atoms) are merged into one, ``_GPU``.
        """
        key = frozenset(unknown)
        hit = self._spread.get(key)
        if hit is not None:
            return hit
        if not key:
            out: dict[_State, float] = {(0, 0): 1.0}
        else:
            last = max(key, key=list(FIELD_VALUES).index)
            cap = self.rules.decision.fit_high
            fits, atoms_of = self.fit[last], self.atoms[last]
            options = [(fits[v], atoms_of[v], q) for v, q in self.rules.priors[last].items()]
            out = {}
            absorbing = self._absorbing
            for (fit, atoms), p in self.spread(key - {last}).items():
                if fit < 0:
                    out[_GPU] = out.get(_GPU, 0.0) + p
                    continue
                for df, da, q in options:
                    a = atoms | da
                    s = _GPU if absorbing(a) else (min(cap, fit + df), a)
                    out[s] = out.get(s, 0.0) + p * q
        self._spread[key] = out
        return out

    def verdict_distribution(self, answers: Mapping[str, str]) -> dict[str, float]:
        """P(verdict of the completed profile) over the completions of the unknown answers."""
        fit, atoms, _, _ = self.signature(answers)
        unknown = frozenset(f for f in FIELD_VALUES if answers.get(f, UNKNOWN) == UNKNOWN)
        key = (fit, atoms, unknown)
        hit = self._dists.get(key)
        if hit is not None:
            return hit
        cap = self.rules.decision.fit_high
        dist = {"gpu": 0.0, "gpu_then_tpu": 0.0, "tpu": 0.0}
        for (f, a), p in self.spread(unknown).items():
            kind = "gpu" if f < 0 else self.decide_signature((min(cap, fit + f), atoms | a, 0, 0)).kind
            dist[kind] += p
        self._dists[key] = dist
        return dist

    def confidence(self, answers: Mapping[str, str], kind: str) -> float:
        """The share of completions that keep ``kind``; exactly 1.0 when nothing can change it."""
        dist = self.verdict_distribution(answers)
        if all(p == 0.0 for k, p in dist.items() if k != kind):
            return 1.0
        return share(dist[kind])

    def question_ranking(self, answers: Mapping[str, str]) -> list[str]:
        """Unknown fields whose answer could change the verdict, most informative first.

        Informative = lowest expected entropy of the verdict after the answer (ties keep the
        contract order). Empty once the verdict is settled.
        """
        base = self.verdict_distribution(answers)
        if sum(1 for p in base.values() if p > 0) <= 1:
            return []
        scored = []
        for i, f in enumerate(FIELD_VALUES):
            if answers.get(f, UNKNOWN) != UNKNOWN:
                continue
            after = [(q, self.verdict_distribution({**answers, f: v})) for v, q in self.rules.priors[f].items()]
            if all(_same(d, base) for _, d in after):
                continue
            scored.append((sum(q * entropy(d) for q, d in after), i, f))
        return [f for _, _, f in sorted(scored)]


def share(p: float) -> float:
    """A probability to 4 decimals; exact halves round up, whatever float sums left below them."""
    return round(p + 1e-12, 4)


_KINDS = VERDICTS
_RANK: dict[str, int] = {k: i for i, k in enumerate(_KINDS)}


def _medians(dist: Mapping[str, float]) -> tuple[int, int]:
    """Ranks of the lower and upper median verdict (GPU -> staged -> TPU) of a distribution."""
    below = above = 0.0
    low = high = None
    for i, kind in enumerate(_KINDS):
        below += dist.get(kind, 0.0)
        if low is None and below >= 0.5 - 1e-9:
            low = i
    for i in reversed(range(len(_KINDS))):
        above += dist.get(_KINDS[i], 0.0)
        if high is None and above >= 0.5 - 1e-9:
            high = i
    return (low if low is not None else 0), (high if high is not None else 0)


def _or(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def _same(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    return all(abs(a[k] - b[k]) < 1e-12 for k in a)


_ENGINES: dict[int, tuple[RuleSet, Engine]] = {}


def engine_for(rules: RuleSet) -> Engine:
    """The compiled engine of a rule set, built once per rule set object."""
    hit = _ENGINES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    engine = Engine(rules)
    if len(_ENGINES) >= 16:
        _ENGINES.clear()
    _ENGINES[id(rules)] = (rules, engine)
    return engine
