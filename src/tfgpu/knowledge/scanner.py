"""A streaming matcher of the signature base over log lines.

Matching is built for logs of any size. Lines are matched a block at a time: the block is
first searched for the literal keywords the patterns cannot match without (one substring test
per keyword, in C, over ~1,000 lines at once; keywords that share a gate, a five-letter piece of
text, are looked for only when the block holds it), then each line only for the keywords its block
holds, and only a line that holds one is searched with the regexes. Most of a training log
(progress bars, notices) holds none, so a line costs a few string operations. Only counts and the
first quoted lines of each match are kept, so memory does not grow with the log.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from tfgpu.knowledge.archs import parse_cc
from tfgpu.knowledge.compat import gpu_model
from tfgpu.knowledge.keyword_index import Held, compact, keyword_index
from tfgpu.knowledge.log_facts import (
    CUDA_INSTALLED,
    CUDA_LISTED,
    FAILURE_SAID,
    FORM_FIELD,
    GPU_SAID,
    GTX_16,
    INDENTS,
    NOT_NVIDIA,
    NOTICE_RECORD,
    NVIDIA_KEYS,
    OTHER_GRAPHICS,
    QUOTE_HEADS,
    QUOTE_MARKS,
    REPLY_MARK,
    TF_VERSION,
    CudartAsked,
    GpuKnown,
    MachineReading,
    has_tensor_cores,
)
from tfgpu.knowledge.posted_text import WRAPPED_CHARS, broke_off, plain, starts_record, unwrapped
from tfgpu.knowledge.resemblance import Resemblance, complains, features, load_resemblance
from tfgpu.knowledge.signatures import (
    Hit,
    ScanContext,
    Signature,
    branches,
    component_of,
    literal_runs,
    load_signatures,
    said_no_gpu,
    version_tuple,
)
from tfgpu.knowledge.version_checks import (
    build_predates_gpu,
    built_cuda,
    cuda_predates_gpu,
    cudnn_below_build,
    cudnn_not_for_cuda,
    cudnn_want_not_built,
    other_cuda,
    other_major,
    release_kernels,
    tell_versions,
    told_fields,
    want_not_built,
)
from tfgpu.knowledge.words import COMMON_LOG_WORDS, content_words, terms
from tfgpu.model.explanation import Reading
from tfgpu.model.findings import Severity

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def strip_ansi(text: str) -> str:
    r"""``text`` without ANSI CSI sequences (colour, cursor moves), as the matcher reads lines.

    Examples:
        >>> strip_ansi("\x1b[1m750/750\x1b[0m done")
        '750/750 done'
    """
    return _ANSI.sub("", text) if "\x1b" in text else text


ONE_PROBLEM_WITH = MappingProxyType({"oom_host": "oom"})
"""Classes that are one problem with another when both are in a log: TF's "OOM when allocating ... device:CPU:0" is
host memory (oom_host) and the generic ResourceExhaustedError (oom) at once, told by its most specific signature."""
SHORT_LOG_LINES = 3
"""A log this short is a pasted title or a single line: its words are read where no message matched as written."""
SAID_LINES = 64
"""The head of a longer log, where a report's own words are read for the signatures that allow it (``said_in_post``)."""
NAMED_CHARS = 8192
"""Of those words, the most searched for a GPU model's name (each of gpu_cc.csv's rows is looked for)."""
MAX_WORD_READ_LINES = 8
"""Error lines only the fallback tier knew, kept for reading by words."""


@functools.lru_cache(maxsize=4)
def _word_bags(signatures: tuple[Signature, ...]) -> tuple[tuple[frozenset[str], int], ...]:
    """Per signature that can be told from words alone, the content words of each literal its patterns require.

    A signature qualifies when it names a specific problem (not a harmless line, a generic symptom
    or the fallback), asks nothing of the machine or of other lines, and prints no field that only
    its own match fills; a branch needs three content words or more beside the words every TF log
    holds, so that a bag names one message and not a common phrase.
    """
    bags = []
    for index, sig in enumerate(signatures):
        if not _readable_by_words(sig):
            continue
        for pattern in sig.patterns:
            for branch in branches(pattern.pattern.removeprefix("(?i)")):
                words = content_words(" ".join(literal_runs(branch))) - COMMON_LOG_WORDS
                if len(words) >= 3:
                    bags.append((words, index))
    return tuple(bags)


@functools.lru_cache(maxsize=4)
def term_index(signatures: tuple[Signature, ...]) -> Mapping[str, int]:
    """The terms that belong to one problem alone, each to the signature (of the bags' kind) it names.

    A term any other category's message or example line holds (a harmless line's too) names
    nothing: "compute capability" is in three problems' messages, "OP_REQUIRES" in the lines of
    many, "illegal instruction" in one problem's alone. Nor does a term the category's generic
    symptom prints (an only-alone message): "Autotuner could not find any supported configs" is
    the generic reading of XLA's autotuner, and its words must not name the one specific cause
    (TF32 turned off) that extends that message.
    """
    owners: dict[str, set[str]] = {}
    generic: set[str] = set()
    named: dict[str, int] = {}
    for index, sig in enumerate(signatures):
        for example in sig.examples:
            for term in terms(example):
                owners.setdefault(term, set()).add(sig.category)
        for pattern in sig.patterns:
            for branch in branches(pattern.pattern.removeprefix("(?i)")):
                for term in terms(" ".join(literal_runs(branch))):
                    owners.setdefault(term, set()).add(sig.category)
                    if _readable_by_words(sig):
                        named.setdefault(term, index)
                    elif sig.only_alone and not sig.benign:
                        generic.add(term)
    return MappingProxyType(
        {term: index for term, index in named.items() if len(owners[term]) == 1 and term not in generic}
    )


@functools.cache
def _features_of(sig: Signature) -> frozenset[str]:
    """What a signature's examples and required literals are compared by (as a paste is, by resemblance)."""
    literal = " ".join(
        run for p in sig.patterns for b in branches(p.pattern.removeprefix("(?i)")) for run in literal_runs(b)
    )
    return features(" ".join((*sig.examples, literal)))


def _readable_by_words(sig: Signature) -> bool:
    return not (sig.benign or sig.fallback or sig.only_alone) and _unconditional(sig) and not _prints_its_groups(sig)


def _unconditional(sig: Signature) -> bool:
    return not (
        sig.also
        or sig.when_os
        or sig.tf_min
        or sig.when_container is not None
        or sig.when_gpu is not None
        or sig.when_unknown_gpu_pasted
        or sig.when_unknown_gpu_subject
        or sig.when_gpu_held is not None
        or sig.when_gpu_shared is not None
        or sig.when_limit_over_gpu is not None
        or sig.when_gpu_created is not None
        or sig.when_driver_differs is not None
        or sig.when_tensor_cores is not None
        or sig.when_other_cuda
        or sig.when_want_not_tf_cuda
        or sig.when_want_not_tf_cudnn
    )


def _prints_its_groups(sig: Signature) -> bool:
    names = {name for pattern in sig.patterns for name in pattern.groupindex}
    return any("{" + name + "}" in text for name in names for text in (sig.title, sig.cause, sig.fix))


MAX_QUOTES = 3
MAX_LINE_CHARS = 4096
BLOCK_LINES = 1024
"""Lines matched together: the keyword search over a block costs about what one line's did."""


@dataclass(frozen=True)
class ScanResult:
    """The matches of a whole log, most important first."""

    hits: tuple[Hit, ...]
    lines: int
    long_lines: int
    context: ScanContext

    def severity(self, hit: Hit) -> Severity:
        """How grave ``hit`` is told in this log (its ``severity_unknown_gpu`` where nothing shows a GPU)."""
        unknown_gpu = hit.signature.severity_unknown_gpu
        return unknown_gpu if unknown_gpu and self.context.gpu is GpuKnown.UNKNOWN else hit.signature.severity


_PROGRESS = re.compile(
    r"^\s{0,16}\d{1,9}/\d{1,9}\s|━|(?<!\d)\d{1,3}%\|| ETA[: ]|(?<![\d.])\d{1,6}(?:\.\d{1,3})?(?:it|s)/(?:s|it)\b"
)
"""A progress redraw (Keras's "12/750 ━━━", tqdm's "40%|", "ETA"): not a line to read unless it is the last."""


_BLANK_RUN_MAX = 3
"""Blanks a post puts between two words of a message, at most (an HTML table copied: "Could not  load dynamic library").
A longer run aligns columns (a shell's "[1]+  Killed                  python3 x.py"), which a pattern may read as such."""
_BLANK_BEFORE_COLON = re.compile(r"(\.so(?:\.\d+)*) +:")
"""Blanks before the colon after a library's name, as a retyped error has it ("libcudart.so.7.5 : cannot open")."""


def _tidy_spacing(line: str) -> str:
    """``line`` without the spacing a post adds inside a message; indentation, column runs and trailing blanks stay.

    A scan of the few double blanks a line holds, not a regular expression: most lines of a TF log hold one
    (absl's padding of the thread id).

    Examples:
        >>> _tidy_spacing("W dso_loader.cc:64] Could not  load dynamic library 'libcusolver.so.11'")
        "W dso_loader.cc:64] Could not load dynamic library 'libcusolver.so.11'"
        >>> _tidy_spacing('"ImportError libcudart.so.7.5 : cannot open shared object file"')
        '"ImportError libcudart.so.7.5: cannot open shared object file"'
        >>> _tidy_spacing("  File x.py, line 3")
        '  File x.py, line 3'
    """
    parts: list[str] = []
    kept = 0
    run = line.find("  ")
    while run != -1:
        end = run + 2
        while end < len(line) and line[end] == " ":
            end += 1
        if run > 0 and end - run <= _BLANK_RUN_MAX and end < len(line):
            parts += (line[kept:run], " ")
            kept = end
        run = line.find("  ", end)
    if parts:
        line = "".join(parts) + line[kept:]
    if " :" in line:
        line = _BLANK_BEFORE_COLON.sub(r"\1:", line)
    return line


_text = operator.itemgetter(1)
"""A numbered line's text."""
_by_signature = operator.itemgetter(0)
"""Candidates in the base's order, so the first signature of a line is the same whatever keyword found it."""


_VERSIONS_STATED = (TF_VERSION, CUDA_INSTALLED, CUDA_LISTED)
"""What a line that states the TF release or the CUDA installed matches: the lines a ``Reading.BY_VERSIONS`` quotes."""


def _states_version(line: str) -> bool:
    """Whether a line states the TF release or the CUDA installed (``_VERSIONS_STATED``)."""
    return any(p.search(line) for p in _VERSIONS_STATED)


class LogScanner:
    """Feed lines one at a time; ask for the result at the end."""

    def __init__(self, signatures: Iterable[Signature] | None = None, resemblance: Resemblance | None = None) -> None:
        """``signatures`` default to the packaged base, and with them ``resemblance`` to the packaged model.

        A caller with its own signatures (an earlier commit's, a benchmark's fold) brings its own
        model, or none: the model was learnt beside the packaged base.
        """
        self.signatures = tuple(signatures if signatures is not None else load_signatures())
        self.resemblance = resemblance if resemblance is not None or signatures is not None else load_resemblance()
        self._hits: dict[str, Hit] = {}
        self._also_seen: set[int] = set()
        self.lines = 0
        self.long_lines = 0
        self.machine = MachineReading()
        self._keywords, self._unfiltered, self._also = keyword_index(self.signatures)
        self._pending: list[tuple[int, str]] = []
        self._paste = tuple(sig for sig in self.signatures if sig.paste_patterns)
        self._said = tuple(sig for sig in self._paste if sig.said_in_post)
        self._said_from_versions = tuple(sig for sig in self._said if told_fields(sig))
        self._versions_alone = tuple(sig for sig in self.signatures if sig.versions_alone)
        self._first_lines: list[tuple[int, str]] = []
        self._said_lines: list[tuple[int, str]] = []
        self._fallback_lines: list[tuple[int, str]] = []
        self._quoted: str | None = None

    @property
    def tf_version(self) -> str | None:
        """The TensorFlow release the log's lines first name, read from every line fed so far."""
        self._match_pending()
        return self.machine.tf_version

    @property
    def cudart_asked(self) -> CudartAsked | None:
        """The CUDA runtime TF's own lines first load or ask for, read from every line fed so far."""
        self._match_pending()
        return self.machine.cudart_asked

    @property
    def windows_seen(self) -> bool:
        """Whether a Windows path or DLL is in a line fed so far: TF ran natively on Windows."""
        self._match_pending()
        return self.machine.windows_seen

    def feed(self, raw: str) -> None:
        r"""One line of the log, with or without its newline (matched with its block, at the latest by ``result``).

        A line with ``\r`` in it is several lines to a reader: a log written with CR alone, or an
        error that a short progress redraw covered only in part. Each part is read, except the
        progress redraws before the last part (3,000 Keras updates on one line are one update).
        TF 1.14 and 2.0 wrote "Could not dlopen library 'X'" where other releases write "Could not
        load dynamic library 'X'"; the older wording is read as the newer, one message in two words.
        """
        self.lines += 1
        line = raw.rstrip("\r\n")
        if self._quoted is not None or line[:1] in QUOTE_HEADS:  # most lines: one test
            line = self._unquote(line)
        if "\r" not in line:
            self._feed_part(line)
            return
        *before, last = line.split("\r")
        for part in before:
            if part.strip() and not _PROGRESS.search(part):
                self._feed_part(part)
        self._feed_part(last)

    def _unquote(self, line: str) -> str:
        """The line without the quote or comment mark a post put before a run of TensorFlow's records.

        A reply quotes a log with "> " and a script or README comments it out with "# "; a run of
        such lines that opens with a TF record is read as the records it quotes, so a message broken
        across two of them is still joined ("# ...Could not load dynamic" / "# library 'libcudart...'").
        A reply's mark goes from every line, whatever the run opens with: a mail quotes a whole post,
        its words and the traceback it pasted, and no message TF prints starts with it.
        """
        mark = line[:2]
        if mark == REPLY_MARK:
            self._quoted = mark
            while line.startswith(REPLY_MARK):  # a reply's reply quotes the quote again ("> > ")
                line = line[2:]
            return line
        if mark not in QUOTE_MARKS:
            self._quoted = None
        elif mark == self._quoted or starts_record(line[2:]):
            self._quoted = mark
            return line[2:]
        else:
            self._quoted = None
        return line

    def _feed_part(self, line: str) -> None:
        if len(line) > MAX_LINE_CHARS:
            self.long_lines += 1
            line = line[:MAX_LINE_CHARS]
        if not line.isascii() or "&" in line:
            line = plain(line)  # first: a page may write an escape sequence as "&#27;"
        if "\x1b" in line:
            line = strip_ansi(line)
        if "not dlopen lib" in line:
            line = line.replace("Could not dlopen library", "Could not load dynamic library")
        self._pending.append((self.lines, line))
        if len(self._pending) >= BLOCK_LINES:
            self._match_pending()

    def _match_pending(self) -> None:
        """Match the lines fed since the last block against the keywords the block holds."""
        if not self._pending:
            return
        width = max(map(len, map(_text, self._pending)))  # the width a wrap would have cut the block's lines at
        lines = unwrapped(self._pending, width)
        if lines[0][0] <= SAID_LINES:
            self._read_head(lines)
        block = "\n".join(line for _, line in lines)
        brief = compact(block)
        brief_low = brief.lower()
        self.machine.read_block(block, [line for _, line in lines], brief_low, first=self._pending[0][0] == 1)
        held = self._keywords.held_in(brief, brief_low)
        also = [
            (key, pattern)
            for key, pattern, literals in self._also
            if key not in self._also_seen and any(k in (brief_low if ci else brief) for k, ci in literals)
        ]
        record: tuple[int, str] | None = None  # the last line that matched no specific signature and may go on
        wrapped = False  # whether that line goes on in any next line (a TF record, a label ending in ':') or only in an indented one
        # the last TF record (or piece a console cut) a signature matched, cut mid-sentence
        refine: tuple[int, str, list[int]] | None = None
        previous = ""
        for number, line in lines:
            starts = starts_record(line)
            goes_on = not starts and (wrapped or line[:1] in INDENTS)
            # a wrap at the width broke it off the line before: one break, which ``unwrapped`` leaves (asked only
            # where a join may be tried)
            cut_off = (record is not None or refine is not None) and not starts and broke_off(previous, line, width)
            previous = line
            if record is not None and (goes_on or cut_off) and self._match_joined(record, line):
                record = None
                continue
            if (
                refine is not None
                and ((goes_on and _tail(line)) or (cut_off and len(refine[1]) == width))
                and not self._matching(line, held)
                and self._refine_joined(refine, line)
            ):
                self._see_also(line, also)
                refine = None
                continue
            matched = self._match_line(number, line, held, also)
            record = None if matched or (not starts and line[:1] in INDENTS) else (number, line)
            refine = (number, line, matched) if matched and (starts or len(line) == width) and _cut(line) else None
            wrapped = starts or line.rstrip().endswith(":")
        self._pending = []

    def _read_head(self, lines: list[tuple[int, str]]) -> None:
        """The log's first lines, whole (a wrap's pieces joined): a short paste's, and the poster's own words among them.

        Read from the block's lines as ``unwrapped`` gives them, so that the rest of a TF record a wrap
        broke off is not taken for something the poster wrote.
        """
        for number, line in lines:
            if number > SAID_LINES:
                return
            if not line.strip():
                continue
            if number <= SHORT_LOG_LINES:
                self._first_lines.append((number, line))
                self.machine.read_short_paste_line(line)
            if not starts_record(line):
                self._said_lines.append((number, line))
                self.machine.read_said_line(line)

    def _only_other_graphics(self) -> bool:
        """A post whose only graphics named are another maker's (an Intel UHD, an AMD Radeon): no NVIDIA GPU is here.

        A short paste is read whole; a longer post in its writer's lines (the head's, not TF's records),
        and only where TF created no GPU device: a report's "GPU model: AMD Radeon RX 580" above
        TF's lines for a CUDA build that found nothing.
        """
        if self.lines <= SHORT_LOG_LINES:
            said = self._first_lines
        elif self.machine.gpu_created_seen:
            return False
        else:
            said = self._said_lines
        pasted = [NOT_NVIDIA.sub("", line) for _, line in said]
        return any(OTHER_GRAPHICS.search(line) for line in pasted) and not any(
            key in line for line in pasted for key in NVIDIA_KEYS
        )

    def _match_joined(self, record: tuple[int, str], line: str) -> bool:
        """A message a post or a terminal broke in two: the line joined with its continuation.

        Tried only after a line that matched no specific signature, and only for the line right
        after it when that line starts no record of its own and either follows a TensorFlow log
        record or a label ending in ':' (a path broken before "undefined symbol:"), or is indented
        (a wrapped message's tail): the common line costs nothing more. Joined both ways (``_joinings``); a
        fallback the record's first half met alone gives way to what the whole record says.
        """
        number, first = record
        for joined in _joinings(first, line):
            if self._match_line(number, joined, self._held_by(joined), [], fallback=False):
                self._forget_fallback(number)
                return True
        return False

    def _refine_joined(self, refine: tuple[int, str, list[int]], line: str) -> bool:
        """A TF record a signature matched, whose wrapped tail makes a more specific message of it.

        TF's allocator says "… ran out of memory trying to allocate 2.17GiB with freed_by_count=0. The caller
        indicates that this is not a failure": cut before its last sentence, the head alone reads as an
        out-of-memory. Tried only on the line right after such a record that starts no record of its own and
        matches nothing alone (a tail, not a message of its own). When the joined record matches a signature the
        head did not, it takes the head's place (what the head matched, it matches too), and the ranking of the
        hits decides between them.
        """
        number, first, matched = refine
        head = {self.signatures[index].id for index in matched}
        for joined in _joinings(first, line):
            found = self._matching(joined, self._held_by(joined))
            if any(self.signatures[index].id not in head for index, _ in found):
                for key in head:
                    self._unrecord(key, number, first)
                for index, match in found:
                    self._record(self.signatures[index], match, joined, number)
                return True
        return False

    def _held_by(self, line: str) -> Held:
        """The keywords one joined line holds (a block's are read once for all its lines)."""
        brief = compact(line)
        return self._keywords.held_in(brief, brief.lower())

    def _unrecord(self, key: str, number: int, line: str) -> None:
        """Take back what one line added to a hit: its count and its quote (the hit goes where the line made it)."""
        hit = self._hits[key]
        hit.count -= 1
        if hit.quotes and hit.quotes[-1] == (number, line.strip()):
            hit.quotes.pop()
        if hit.count <= 0:
            del self._hits[key]

    def _forget_fallback(self, number: int) -> None:
        for key, hit in list(self._hits.items()):
            if hit.signature.fallback and hit.first_line == number:
                if hit.count <= 1:
                    del self._hits[key]
                else:
                    hit.count -= 1

    def _match_line(
        self,
        number: int,
        line: str,
        held: Held,
        also: list[tuple[int, re.Pattern[str]]],
        fallback: bool = True,
    ) -> list[int]:
        """Record what the line matches: the specific signatures that matched it, by index (a fallback alone counts none).

        A line that matches nothing is tried again without the spacing a post adds inside a message
        (``_tidy_spacing``): only then, as a long log's lines mostly match a harmless signature or hold no
        double blank, and the tidy is the costlier test.
        """
        self._see_also(line, also)
        found = self._matching(line, held)
        if not found and ("  " in line or " :" in line):
            tidied = _tidy_spacing(line)
            if tidied != line:
                line, held = tidied, self._held_by(tidied)
                found = self._matching(line, held)
        for index, match in found:
            self._record(self.signatures[index], match, line, number)
        if not found and fallback and held.fallback:
            self._match_fallback(number, line, held)
        return [index for index, _ in found]

    def _see_also(self, line: str, also: list[tuple[int, re.Pattern[str]]]) -> None:
        for also_id, also_pattern in also:
            if also_id not in self._also_seen and also_pattern.search(line):
                self._also_seen.add(also_id)

    def _matching(self, line: str, held: Held) -> list[tuple[int, re.Match[str]]]:
        """The specific signatures the line matches (by index, each once, in base order) and their matches."""
        found = [entry for key, entries in held.sensitive if key in line for entry in entries]
        if held.insensitive:
            low = line.lower()
            found.extend(entry for key, entries in held.insensitive if key in low for entry in entries)
        matches: list[tuple[int, re.Match[str]]] = []
        if found or self._unfiltered:
            matched: set[int] = set()
            for index, pattern in sorted((*self._unfiltered, *found), key=_by_signature):
                if index in matched:
                    continue
                match = pattern.search(line)
                if match:
                    matched.add(index)
                    matches.append((index, match))
        return matches

    def _match_fallback(self, number: int, line: str, held: Held) -> None:
        """The most specific fallback that matches a line nothing else explained (one at most)."""
        found = [entry for key, entries in held.fallback if key in line for entry in entries]
        for index, pattern in sorted(found, key=lambda c: -self.signatures[c[0]].priority):
            match = pattern.search(line)
            if match:
                self._record(self.signatures[index], match, line, number)
                if len(self._fallback_lines) < MAX_WORD_READ_LINES:
                    self._fallback_lines.append((number, line))
                return

    def _record(self, signature: Signature, match: re.Match[str], line: str, number: int) -> None:
        hit = self._hits.get(signature.id)
        if hit is None:
            hit = self._hits[signature.id] = Hit(signature, first_line=number)
        hit.count += 1
        for name, value in match.groupdict().items():
            if value is not None:
                hit.groups.setdefault(name, value.strip())
        if signature.fallback and "component" not in hit.groups:
            component = component_of(line)
            hit.groups.update(component=component.name, next_step=component.next_step)
        if len(hit.quotes) < MAX_QUOTES:
            hit.quotes.append((number, line.strip()))

    def result(self, context: ScanContext | None = None) -> ScanResult:
        """Hits whose conditions hold, ranked: problems before harmless lines, then priority, then position."""
        self._match_pending()
        ctx = context or ScanContext()
        effective = ScanContext(
            os=ctx.os
            or (
                "windows"
                if self.machine.windows_seen or (self.machine.windows_said and not self.machine.wsl_said)
                else None
            ),
            tf_version=ctx.tf_version or self.machine.libtensorflow() or self.machine.tf_version,
            container=ctx.container if ctx.container is not None else (True if self.machine.container_seen else None),
            cuda_installed=ctx.cuda_installed or (tuple(self.machine.cuda_seen) if self.machine.cuda_seen else None),
            cudnn_installed=ctx.cudnn_installed
            or (tuple(self.machine.cudnn_seen) if self.machine.cudnn_seen else None),
            no_gpu=ctx.no_gpu,
            gpu=self._gpu_known(ctx.no_gpu),
            gpu_held=ctx.gpu_held
            if ctx.gpu_held is not None
            else (self.machine.gpu_held_seen or self.machine.reserved_held()),
            gpu_created=ctx.gpu_created if ctx.gpu_created is not None else self.machine.gpu_created_seen,
            gpu_shared=ctx.gpu_shared if ctx.gpu_shared is not None else self.machine.gpu_shared(),
            limit_over_gpu=ctx.limit_over_gpu if ctx.limit_over_gpu is not None else self.machine.limit_over_gpu(),
            driver_differs=ctx.driver_differs if ctx.driver_differs is not None else self.machine.driver_differs(),
            tensor_cores=ctx.tensor_cores if ctx.tensor_cores is not None else self._tensor_cores(),
        )
        gpu_cc = ctx.gpu_cc or self.machine.capability_seen or (self._named_cc() if effective.tf_version else None)
        effective = replace(effective, gpu_cc=gpu_cc)
        effective = replace(effective, kernels=release_kernels(effective))
        problems = [
            h
            for h in self._hits.values()
            if not (h.signature.benign or h.signature.fallback) and self._applies(h, effective)
        ]
        if self.lines <= SHORT_LOG_LINES:
            self._match_paste(effective, self._first_lines, self._paste)
        elif not problems:
            self._match_paste(
                effective, self._said_lines, self._said
            )  # the words confirm a cause; TF's own lines come first
        elif all(h.signature.only_alone for h in problems):
            self._match_paste(effective, self._said_lines, self._said_from_versions)  # a symptom the versions explain
        kept = [h for h in self._hits.values() if self._applies(h, effective)]
        specific = any(not (h.signature.benign or h.signature.only_alone or h.signature.fallback) for h in kept)
        if not specific:
            harmless = {n for h in kept if h.signature.benign for n, _ in h.quotes}
            named = any(not h.signature.benign for h in kept)  # a symptom as written, or a line no signature names
            inferred = self._read_words(harmless) or (
                [] if named else self._by_versions(harmless, effective) or self._resemble(harmless, effective)
            )
            inferred = [h for h in inferred if self._applies(h, effective)]
            kept.extend(inferred)
            specific = bool(inferred)
        kept = [
            h
            for h in kept
            if h.reading is Reading.BY_RESEMBLANCE
            or not ((h.signature.only_alone or h.signature.fallback) and specific)
        ]
        explained = {n for h in kept if not h.signature.benign for n, _ in h.quotes}
        kept = [h for h in kept if not (h.signature.benign and all(n in explained for n, _ in h.quotes))]
        kept.sort(key=lambda h: (h.signature.benign, -h.signature.priority, h.first_line))
        # One problem per category: "OOM when allocating" and "ResourceExhaustedError" on the
        # same line are one out-of-memory problem, told by its most specific signature.
        distinct: dict[str, Hit] = {}
        for hit in kept:
            distinct.setdefault(ONE_PROBLEM_WITH.get(hit.signature.category, hit.signature.category), hit)
        for hit in distinct.values():
            tell_versions(hit, effective)
        return ScanResult(tuple(distinct.values()), self.lines, self.long_lines, effective)

    def _match_paste(self, ctx: ScanContext, lines: list[tuple[int, str]], signatures: tuple[Signature, ...]) -> None:
        """A short paste, or a longer log's own words (``said_in_post``), against the signatures' paste patterns.

        A line a problem's message matched as written is not read again, unless that message's
        conditions do not hold here (TF's out-of-memory with other processes' memory at start, on a
        paste that shows none); a line only a harmless message matched is (the poster's "TensorRT"
        makes TensorRT's missing library a problem). A record TF printed at INFO or WARNING level is TF's
        word, not the poster's: its "to avoid OOM" is no complaint of an out-of-memory.
        """
        matched = {
            n
            for h in self._hits.values()
            if not (h.signature.fallback or h.signature.benign) and self._applies(h, ctx)
            for n, _ in h.quotes
        }
        for number, line in lines:
            if number in matched or NOTICE_RECORD.search(line):
                continue
            for sig in signatures:
                found = next((m for p in sig.paste_patterns if (m := p.search(line))), None)
                if found:
                    self._record(sig, found, line, number)

    def _read_words(self, harmless: set[int]) -> list[Hit]:
        """Signatures whose message words a kept line holds all of, else whose own terms it holds.

        Read only where no message matched as written: the lines of a log of at most
        SHORT_LOG_LINES lines, and error lines only the fallback tier knew; a line a harmless
        signature explained is not read again. Per line, all of a message's words win over its
        terms (an identifier such as CUDNN_STATUS_NOT_INITIALIZED, or a pair of words such as
        "illegal instruction" that no other problem's message holds); then the most terms, then
        the highest priority.
        """
        lines = (self._first_lines if self.lines <= SHORT_LOG_LINES else []) + self._fallback_lines
        found: dict[str, Hit] = {}
        if not lines:
            return []
        bags, index = _word_bags(self.signatures), term_index(self.signatures)  # built once per base, when first read
        for number, line in dict(lines).items():
            if number in harmless:
                continue
            words = content_words(line)
            matches = [self.signatures[i] for bag, i in bags if bag <= words]
            if not matches:
                named = [index[t] for t in terms(line) if t in index]
                most = max((named.count(i) for i in named), default=0)
                matches = [self.signatures[i] for i in set(named) if named.count(i) == most]
            if matches:
                sig = max(matches, key=lambda s: s.priority)
                hit = found.setdefault(sig.id, Hit(sig, first_line=number, reading=Reading.BY_WORDS))
                hit.count += 1
                if len(hit.quotes) < MAX_QUOTES:
                    hit.quotes.append((number, line.strip()))
        return list(found.values())

    def _by_versions(self, harmless: set[int], ctx: ScanContext) -> list[Hit]:
        """The first ``versions_alone`` signature whose conditions hold, where no line names a problem.

        Asked only where the GPU is wanted or present and TF created no device of it, where the post is about the
        GPU (``_gpu_is_subject``: a report form states versions whatever its subject), and where no harmless
        line TF printed is there for the post to be about (a CUDA library TF loaded says the versions serve).
        It quotes the post's lines that state a version; the machine's facts may have given them instead.
        """
        if harmless or ctx.gpu not in (GpuKnown.WANTED, GpuKnown.PRESENT) or ctx.gpu_created:
            return []
        if not self._gpu_is_subject():
            return []
        for sig in self._versions_alone:
            hit = Hit(sig, count=1, reading=Reading.BY_VERSIONS)
            if self._applies(hit, ctx):
                stated = [(n, t) for n, t in self._said_lines if _states_version(t)]
                hit.quotes.extend((n, t.strip()) for n, t in stated[:MAX_QUOTES])
                hit.first_line = stated[0][0] if stated else 0
                return [hit]
        return []

    def _gpu_known(self, no_gpu: bool | None) -> GpuKnown:
        """The machine's GPU as the facts (``no_gpu``) say, else as the log shows it or its writer asks for one.

        A writer's word that the machine has none (another maker's graphics named alone, "a non-GPU
        node") comes before TF's driver lines: a machine without a GPU prints those failing too.
        """
        if no_gpu is not None:
            return GpuKnown.ABSENT if no_gpu else GpuKnown.PRESENT
        if self._only_other_graphics() or any(said_no_gpu().search(line) for _, line in self._said_lines):
            return GpuKnown.ABSENT
        if self.machine.gpu_seen:
            return GpuKnown.PRESENT
        if self.machine.gpu_wanted:
            return GpuKnown.WANTED
        return GpuKnown.ABSENT if self.machine.no_driver_seen else GpuKnown.UNKNOWN

    def _other_failure_said(self) -> bool:
        """Whether the post's own words report a failure in a line that names no part of the GPU stack.

        "Error while training PPO agent" above TF's "Could not find cuda drivers on your machine" is a
        failure of its own, and the notice beside it a CPU run's, where nothing shows a GPU.
        """
        return any(FAILURE_SAID.search(t) and not GPU_SAID.search(t) for _, t in self._said_lines)

    def _gpu_is_subject(self) -> bool:
        """Whether the post's own words are about the GPU: a line names the GPU stack, none a failure apart from it.

        A report form's fields ("GPU model and memory: ...") and the lines that state a version do not count:
        every report of the template holds them. A failure said in a line that names no part of the GPU stack
        ("Error while saving the model") is the post's subject (``_other_failure_said``).
        """
        own = [t for _, t in self._said_lines if not (FORM_FIELD.match(t) or _states_version(t))]
        return any(GPU_SAID.search(t) for t in own) and not self._other_failure_said()

    def _named_cc(self) -> tuple[int, int] | None:
        """The compute capability of the GPU model the log's own words name in its head (the first NAMED_CHARS)."""
        text = " ".join(line for _, line in self._said_lines)[:NAMED_CHARS]
        model = gpu_model(text) if any(k in text for k in NVIDIA_KEYS) else None
        return parse_cc(model.compute_capability) if model else None

    def _tensor_cores(self) -> bool | None:
        """Tensor Cores as TF's device lines show them, else as the GPU model a short paste names has them."""
        if self.machine.tensor_cores_seen is not None or self.lines > SHORT_LOG_LINES:
            return self.machine.tensor_cores_seen
        text = " ".join(line for _, line in self._first_lines)
        model = gpu_model(text) if text else None
        if model is None:
            return None
        return has_tensor_cores(parse_cc(model.compute_capability), GTX_16.search(model.name) is not None)

    def _resemble(self, harmless: set[int], ctx: ScanContext) -> list[Hit]:
        """The problem that a short paste, or a longer report's own words, resembles most in public reports.

        A longer log is read by the lines of its poster's words (its head, not TF's log records) that
        complain. Either is read only where no harmless line TF printed is there for them to complain of:
        "I get this error" above a CPU machine's "failed call to cuInit", or a title "TensRT issue" above
        TF-TRT's warning, is about that line. Asked only where
        nothing else named a problem: not a generic symptom as written, not the
        fallback tier (a line TF printed that no signature knows is reported as such, with its
        component's next step); a line TF printed at INFO or WARNING level is not read. The problem is told by the signature of its category that applies here
        (the machine's GPU, OS, container as known) and prints no
        field of its own match (the paste filled none: a field left reads "?"), then shares the most
        features with the paste, then is the generic one (``only_alone``).
        """
        if self.resemblance is None:
            return []
        long_log = self.lines > SHORT_LOG_LINES
        if harmless:
            return []  # a post about a line a harmless signature explains complains of that line
        lines = [
            (n, t)
            for n, t in (self._said_lines if long_log else self._first_lines)
            if not NOTICE_RECORD.search(t) and (not long_log or complains(t))
        ]
        text = "\n".join(t for _, t in lines)
        if not lines or not complains(text):
            return []
        likeness = self.resemblance.nearest(text)
        if likeness is None:
            return []
        candidates = [
            s
            for s in self.signatures
            if s.category == likeness.category and not (s.benign or s.fallback) and self._applies(Hit(s), ctx)
        ]
        if not candidates:
            return []
        said = features(text)

        def fit(sig: Signature) -> tuple[bool, int, bool, int]:
            return (not _prints_its_groups(sig), len(said & _features_of(sig)), sig.only_alone, sig.priority)

        sig = max(candidates, key=fit)
        unknown = {name: "?" for pattern in sig.patterns for name in pattern.groupindex}
        hit = Hit(sig, count=1, first_line=lines[0][0], groups=unknown, reading=Reading.BY_RESEMBLANCE)
        hit.quotes.extend((n, t.strip()) for n, t in lines[:MAX_QUOTES])
        return [hit]

    def _applies(self, hit: Hit, ctx: ScanContext) -> bool:
        signature = hit.signature
        if signature.when_other_cuda and not other_cuda(
            hit.groups.get("want", ""), ctx.cuda_installed, hit.groups.get("library", "")
        ):
            return False
        if signature.when_other_cudnn and not other_major(hit.groups.get("want", ""), ctx.cudnn_installed):
            return False
        if signature.when_cudnn_not_for_cuda and not cudnn_not_for_cuda(hit.groups.get("want", ""), ctx.cuda_installed):
            return False
        if signature.when_tf_cuda_differs and not other_cuda(built_cuda(ctx) or "", ctx.cuda_installed):
            return False
        if signature.when_want_not_tf_cuda and not want_not_built(
            hit.groups.get("want", ""), ctx, hit.groups.get("library", "")
        ):
            return False
        if signature.when_want_not_tf_cudnn and not cudnn_want_not_built(hit.groups.get("want", ""), ctx):
            return False
        if any(id(p) not in self._also_seen for p in signature.also):
            return False
        if signature.when_os and ctx.os != signature.when_os:
            return False
        if signature.when_container is not None and bool(ctx.container) != signature.when_container:
            return False
        if signature.when_gpu is not None and ctx.gpu not in signature.when_gpu:
            return False
        if signature.when_unknown_gpu_pasted and ctx.gpu is GpuKnown.UNKNOWN and self.lines > SHORT_LOG_LINES:
            return False
        if signature.when_unknown_gpu_subject and ctx.gpu is GpuKnown.UNKNOWN and self._other_failure_said():
            return False
        if signature.when_gpu_held is not None and bool(ctx.gpu_held) != signature.when_gpu_held:
            return False
        if signature.when_gpu_shared is not None and bool(ctx.gpu_shared) != signature.when_gpu_shared:
            return False
        if signature.when_limit_over_gpu is not None and bool(ctx.limit_over_gpu) != signature.when_limit_over_gpu:
            return False
        if signature.when_gpu_created is not None and bool(ctx.gpu_created) != signature.when_gpu_created:
            return False
        if signature.when_driver_differs is not None and bool(ctx.driver_differs) != signature.when_driver_differs:
            return False
        if signature.when_tensor_cores is not None and ctx.tensor_cores is not signature.when_tensor_cores:
            return False
        if signature.when_kernels is not None and ctx.kernels not in signature.when_kernels:
            return False
        if signature.when_built_cuda_below:
            built = version_tuple(built_cuda(ctx))
            if built is None or built >= signature.when_built_cuda_below:
                return False
        if signature.when_gpu_arch_known is not None and (ctx.gpu_cc is not None) != signature.when_gpu_arch_known:
            return False
        if signature.when_cuda_predates_gpu and not cuda_predates_gpu(ctx):
            return False
        if signature.when_build_predates_gpu and not build_predates_gpu(ctx):
            return False
        if signature.when_cudnn_below_build and not cudnn_below_build(ctx):
            return False
        if signature.tf_min:
            version = version_tuple(ctx.tf_version)
            if version is None or version < signature.tf_min:
                return False
        return True


def _breaks_mid_word(first: str, line: str) -> bool:
    """Whether a line may be the rest of a word the line before it was cut in: letters or digits meet at the break, no blank or indent between."""
    return first[-1:].isalnum() and line[:1].isalnum()


def _joinings(first: str, line: str) -> tuple[str, str]:
    """A line and its continuation joined both ways, the likelier first.

    With a space (a wrap at a blank), and without (a break mid-word), which goes first where letters meet
    letters at the break ("cuDevicePrimary" / "CtxRetain" is one word).
    """
    spaced, unspaced = first.rstrip() + " " + line.strip(), first.rstrip() + line.strip()
    return (unspaced, spaced) if _breaks_mid_word(first, line) else (spaced, unspaced)


def _cut(line: str) -> bool:
    """Whether a record may have been cut by a wrap: long, and ending mid-sentence (a word, a number, a comma, an identifier)."""
    end = line.rstrip()[-1:]
    return len(line) >= WRAPPED_CHARS and (end.isalnum() or end in ",_")


def _tail(line: str) -> bool:
    """Whether a line may be the rest of a sentence cut before it: it goes on in lower case, a number or a bracket."""
    head = line.lstrip()[:1]
    return bool(head) and (head.islower() or head.isdigit() or head in "([`'\"")
