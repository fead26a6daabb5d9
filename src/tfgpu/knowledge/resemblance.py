"""Which known problem a paste most resembles, learnt from labelled public reports.

The signature base names a problem from a message as TF prints it, or from a message's own words.
People put the same problem in words nobody wrote a signature for ("libcudnn.so.8 and
libcusolver.so.10 dont load"); what such a paste shares with earlier reports of one problem is its
vocabulary: a library's name, an identifier, a pair of naming words. A naive Bayes model over those
features, counted in the public threads of ``benchmarks/corpus`` (their held-out quarter left out,
``scripts/build_resemblance.py``), names the problem the paste is most like. It is asked only where
no message matched: of a short paste, or of the lines of a longer report's own words (not TF's log
records) that say something went wrong, where no harmless line TF printed is what they complain of;
its answer says that it was named by resemblance.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

from tfgpu.knowledge.words import COMMON_LOG_WORDS, FUNCTION_WORDS, content_words, terms

SHORT_REPORT_LINES = 3
"""A report this short (a title, a line) is learnt whole."""
TEXT_CHARS = 4000
"""A report is read up to this many characters: its title and first lines say what it is about."""
MIN_FEATURES = 2
"""Fewer features than this in common with the reports of the problem named (and of all problems) name nothing."""
PRIOR_REPORTS = 1.0
"""How many reports' weight a feature's share of all reports has in its share of one problem's reports.

A feature no report of a small problem holds is then about as rare there as it is everywhere, not one in
``reports + 1``: with flat additive smoothing, a problem with two reports took a sixth for each feature
it lacked, and outweighed one with 170 reports that held the feature once ("got OutOfMemory Error"
resembled memory_growth_mixed, not oom)."""
MAX_SPREAD = 8
"""A feature the reports of more problems than this hold ("InternalError", "graph execution") names none: it is not learnt."""
MIN_REPORTS = 2
"""A problem with fewer reports than this is not named: one report is an anecdote, not a pattern."""
MIN_MARGIN = 1.0
"""Log-odds the most resembled problem must lead the next one by (about 2.7 times as likely).

Under grouped cross-validation 0.5 raised one false alarm more (pub-1077's "CUDA_VISIBLE_DEVICES no
use" as no GPU visible) and named no more logs; 1.5 and 2.0 named fewer and raised no fewer alarms."""
_LIBRARY = re.compile(
    r"(?i)\b(lib[a-z_]+?|cudnn_[a-z_]+?|cudart|cublas|cusolver|cufft|curand|cusparse|nvcuda)(?:64)?(?:\.so|_\d+\.dll|\d*\.dll)"
)
"""A library named in a soname or a DLL (libcudnn.so.8, cudart64_110.dll): its stem, without the version."""
_COMPLAINT = re.compile(
    r"(?i)\b(?:error|errors|fail\w*|not|no|cannot|can't|couldn'?t|unable|doesn'?t|don'?t|dont|isn'?t|won'?t|"
    r"missing|slow\w*|crash\w*|abort\w*|killed|issue|problem|wrong|stuck|hang\w*|freez\w*|exception|traceback|"
    r"horrible|terrible|bad|poor|worse|broken|refus\w*)\b"
)
"""Words of something gone wrong: a paste without any says nothing to resemble a problem with."""
_NEGATED_COMPLAINT = re.compile(
    r"(?i)\b(?:no|without(?: any)?)\s+(?:\w+\s+){0,2}?(?:errors?|issues?|problems?|crash\w*)\b"
)
"""A complaint said not to happen ("now it trains with no OOM errors at all", "runs without any issues"):
the words of a fix that worked, which complain of nothing."""


def complains(text: str) -> bool:
    """Whether ``text`` says something went wrong, less the complaints it says do not happen.

    Examples:
        >>> complains("now it trains with no OOM errors at all"), complains("no GPU found")
        (False, True)
    """
    return _COMPLAINT.search(_NEGATED_COMPLAINT.sub(" ", text)) is not None


_NOT_FEATURES = (
    COMMON_LOG_WORDS
    | FUNCTION_WORDS
    | frozenset(["after", "again", "although", "because", "before", "even", "since", "still", "though", "until"])
    | frozenset(["bug", "question", "help"])
)
"""Words every log holds, the words a poster's sentence is built with ("after the upgrade", "even though"),
and an issue template's labels ("[Bug]: ...", a question, a call for help) that a report of any problem carries."""
_GPU_BRANDS = frozenset(["nvidia", "geforce", "rtx", "gtx", "quadro", "tesla", "titan"])
"""Words of a GPU's product name: a poster names the card of any problem ("mixed_float16 is slow on my
GeForce RTX 3090"), so they say what the machine is, not what went wrong. Which card is too old for the
build is read from its compute capability, not resembled."""


def features(text: str) -> frozenset[str]:
    """What a report is compared by: content words beside every log's, terms, and libraries by name.

    An identifier is one word ("ValueError" is not also the term "valueerror"): counted twice, it made
    a problem with two reports that printed it outweigh one whose reports share every other word. A pair
    of words that are not features ("even though") is not a term either.

    Examples:
        >>> sorted(features("libcudnn.so.8 dont load"))
        ['dont', 'lib:libcudnn', 'libcudnn']
    """
    head = text[:TEXT_CHARS]
    found = {f"lib:{m.group(1).lower()}" for m in _LIBRARY.finditer(head)}
    words = content_words(head)
    found |= words - _NOT_FEATURES - _GPU_BRANDS
    found |= {
        f"term:{t}"
        for t in terms(head)
        if t not in words and _GPU_BRANDS.isdisjoint(t.split()) and not _NOT_FEATURES.issuperset(t.split())
    }
    return frozenset(found)


def complaints(text: str) -> str:
    """What a report says went wrong: a short one whole, of a longer one the lines that complain.

    A long log's other lines (libraries opened, devices created) are in every report, whatever its problem.
    """
    lines = text.splitlines()
    if sum(1 for line in lines if line.strip()) <= SHORT_REPORT_LINES:
        return text
    return "\n".join(line for line in lines if complains(line))


@dataclass(frozen=True)
class Likeness:
    """The problem a text most resembles, and by how much more than the next one."""

    category: str
    margin: float
    """Log-odds over the runner-up: 0 is a tie broken by order, 2 is about seven times as likely."""
    reports: int
    """Public reports of this problem the model learnt from."""


@dataclass(frozen=True)
class Resemblance:
    """Per problem (category), how many reports were counted and how many of them held each feature."""

    reports: Mapping[str, int]
    held: Mapping[str, Mapping[str, int]]

    @classmethod
    def learn(cls, reports: Iterable[tuple[str, str]]) -> Resemblance:
        """The model of ``(category, text)`` reports."""
        counts: Counter[str] = Counter()
        held: dict[str, Counter[str]] = {}
        for category, text in reports:
            counts[category] += 1
            held.setdefault(category, Counter()).update(features(complaints(text)))
        spread = Counter(f for found in held.values() for f in found)
        kept = {
            c: MappingProxyType({f: n for f, n in found.items() if spread[f] <= MAX_SPREAD})
            for c, found in held.items()
            if counts[c] >= MIN_REPORTS
        }
        return cls(MappingProxyType({c: counts[c] for c in kept}), MappingProxyType(kept))

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> Resemblance:
        """The model as ``to_document`` wrote it."""
        problems = document["problems"]
        return cls(
            MappingProxyType({c: int(p["reports"]) for c, p in problems.items()}),
            MappingProxyType({c: MappingProxyType(dict(p["held"])) for c, p in problems.items()}),
        )

    def to_document(self) -> dict[str, Any]:
        """A JSON-ready form, sorted so that the same reports write the same bytes."""
        return {
            "problems": {
                c: {"reports": self.reports[c], "held": dict(sorted(self.held[c].items()))}
                for c in sorted(self.reports)
            }
        }

    @functools.cached_property
    def _vocabulary(self) -> frozenset[str]:
        return frozenset(f for held in self.held.values() for f in held)

    @functools.cached_property
    def _background(self) -> Mapping[str, float]:
        """Each feature's share of all reports: what a problem's share of it tends to before its own reports say."""
        total = sum(self.reports.values())
        counts: Counter[str] = Counter()
        for held in self.held.values():
            counts.update(held)
        return MappingProxyType({f: n / total for f, n in counts.items()})

    def nearest(self, text: str) -> Likeness | None:
        """The problem ``text`` most resembles, or None when it shares too little with every report."""
        found = features(text) & self._vocabulary
        if len(found) < MIN_FEATURES or len(self.reports) < 2:
            return None
        total = sum(self.reports.values())
        background = self._background
        scores = []
        for category, reports in self.reports.items():
            held = self.held[category]
            score = math.log(reports / total) + sum(
                math.log((held.get(f, 0) + PRIOR_REPORTS * background[f]) / (reports + PRIOR_REPORTS)) for f in found
            )
            scores.append((score, category))
        scores.sort(reverse=True)
        (best, category), (second, _) = scores[0], scores[1]
        if best - second < MIN_MARGIN or sum(1 for f in found if self.held[category].get(f)) < MIN_FEATURES:
            return None
        return Likeness(category, best - second, self.reports[category])


@functools.cache
def load_resemblance() -> Resemblance:
    """The packaged model (``data/resemblance.json``, written by ``scripts/build_resemblance.py``)."""
    raw = resources.files("tfgpu.knowledge").joinpath("data").joinpath("resemblance.json").read_bytes()
    return Resemblance.from_document(json.loads(raw))
