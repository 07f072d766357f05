#!/usr/bin/env python3
"""benchstats.py: the statistics and log parsing of the benchmark scripts beside it.

The scripts in scripts/bench/ run the tools and print tables; every figure they print that
takes arithmetic (a median, a mean and its spread, a ratio, a rate, a verdict against a
target) or that is read out of a tool's log or --metrics file comes from here, so that the
scripts read as the steps of a benchmark and the numbers have one definition each.

Called from the shell as `python3 benchstats.py SUBCOMMAND ARGS...` (lib.sh's `stats`;
--help lists the subcommands). Each prints a figure, or shell assignments NAME=VALUE for the
script to eval (ann-summary: its lines; measure and stamp run and copy), and fails with
status 1 and the reason on stderr when its input is not what it expects: a log without the
line a figure comes from is an error, never a silent 0.

Standard library only, Python >= 3.9: it runs under Debian's /usr/bin/python3 here and
under the device machine's python3, which has none of our Debian packages.

Number formats are those the scripts printed before this module existed (with awk), since
bench/RESULTS.md and the device kit's summary quote them: see awk_number.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import math
import operator
import re
import resource
import subprocess
import sys
import time
from typing import Callable, Iterable, Sequence

EMPTY = "-"  # what a statistic over no values prints, so that a table keeps its columns


class BenchError(Exception):
    """An input the benchmark cannot use (a missing log line, a word that is not a number)."""


# ---- formatting -----------------------------------------------------------------------------


def awk_number(value: float) -> str:
    """`value` as awk's print wrote it: an integral value that fits a 32-bit int whole ("12"),
    any other to 6 significant digits ("0.333333", "1.23457e+06", "3e+09").

    The scripts printed some figures (the mean of a list, the median of an even count) with
    awk's print, and the reports quote them that way; this keeps them identical. (Debian's
    awk is mawk, whose whole-number limit is the int's; gawk's would be larger.)"""
    if math.isfinite(value) and value == int(value) and -(2**31) <= value < 2**31:
        return str(int(value))
    return f"{value:.6g}"


def formatted(value: float, spec: str, suffix: str = "") -> str:
    """`value` in the format spec `spec` (".2f", ".4g", "6.0f"), then `suffix`."""
    return f"{value:{spec}}{suffix}"


# ---- lists of numbers -------------------------------------------------------------------------


def numbers(words: Iterable[str]) -> list[str]:
    """The numbers of `words` (each argument may hold several, space-separated, as the scripts
    gather one list per figure), kept as written: a median of an odd count prints its value as
    the tool wrote it. Raises BenchError on a word that is not a number."""
    values = [w for word in words for w in word.split()]
    for v in values:
        try:
            float(v)
        except ValueError:
            raise BenchError(f"not a number: {v!r}") from None
    return values


def numeric_order(values: Sequence[str]) -> list[str]:
    """`values` from the smallest to the largest (equal values by their text, as sort -g)."""
    return sorted(values, key=lambda v: (float(v), v))


def median(values: Sequence[str]) -> str:
    """The median of `values`, EMPTY for none.

    The benchmarks report the median of their runs, not the mean: they run on shared
    machines, where a run disturbed by another job (or a cold page cache) is slow in one
    direction only, and the median ignores one such run where the mean takes a share of it.
    An odd count prints the middle value as written; an even count the mean of the two middle
    values (awk_number)."""
    if not values:
        return EMPTY
    ordered = numeric_order(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return awk_number((float(ordered[middle - 1]) + float(ordered[middle])) / 2)


def maximum(values: Sequence[str]) -> str:
    """The largest of `values` as written, EMPTY for none. Peak memory is reported as the
    largest over runs: the budget a user needs is the worst run's, not a typical one's."""
    return numeric_order(values)[-1] if values else EMPTY


def mean(values: Sequence[str]) -> str:
    """The arithmetic mean of `values` (awk_number), EMPTY for none. Used for quality figures
    (analogy accuracy, Spearman, cost), whose runs differ by seed, not by machine noise: every
    seed is as likely, so each counts alike."""
    if not values:
        return EMPTY
    return awk_number(sum(map(float, values)) / len(values))


def total(values: Sequence[str]) -> str:
    """The sum of `values` (awk_number), EMPTY for none: stages' seconds added up."""
    if not values:
        return EMPTY
    return awk_number(sum(map(float, values)))


def mean_spread(values: Sequence[str], decimals: int) -> str:
    """"MEAN ± HALF_RANGE" to `decimals` decimals: the mean and half of (max - min), EMPTY for
    none. Half the range, not a standard deviation: with 2 or 3 seeds a standard deviation
    is barely defined, and the half range says plainly how far apart the runs were."""
    if not values:
        return EMPTY
    floats = [float(v) for v in values]
    half_range = (max(floats) - min(floats)) / 2
    return f"{sum(floats) / len(floats):.{decimals}f} ± {half_range:.{decimals}f}"


def mean_sd(values: Sequence[str], decimals: int) -> str:
    """"MEAN +- SD" to `decimals` decimals, SD the sample standard deviation (n - 1); the mean
    alone for one value (no spread to speak of), EMPTY for none. For figures compared with a
    reference's seed noise (glove.sh against Stanford GloVe's spread over seeds)."""
    if not values:
        return EMPTY
    floats = [float(v) for v in values]
    average = sum(floats) / len(floats)
    if len(floats) == 1:
        return f"{average:.{decimals}f}"
    variance = max(0.0, sum((x - average) ** 2 for x in floats) / (len(floats) - 1))
    return f"{average:.{decimals}f} +- {math.sqrt(variance):.{decimals}f}"


def spread(values: Sequence[str], decimals: int = 3) -> str:
    """max - min of `values` to `decimals` decimals, EMPTY for fewer than two: the seed noise a
    quality difference is judged against (big_table.sh's share of neighbours over seeds)."""
    if len(values) < 2:
        return EMPTY
    floats = [float(v) for v in values]
    return f"{max(floats) - min(floats):.{decimals}f}"


# ---- comparisons ------------------------------------------------------------------------------


def ratio(numerator: float, denominator: float) -> str:
    """numerator / denominator to two decimals; "inf" when the denominator is not positive, so
    that a run too fast to time does not stop the report."""
    if denominator > 0:
        return f"{numerator / denominator:.2f}"
    return "inf"


def signed_difference(a: float, b: float, decimals: int) -> str:
    """a - b with its sign ("+0.12", "-0.03"): how far a figure is from a reference."""
    return f"{a - b:+.{decimals}f}"


_OPERATORS: dict[type, Callable] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.USub: operator.neg, ast.UAdd: operator.pos,
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}


def _evaluate(node: ast.AST) -> float | bool:
    """One node of a verdict's condition: numbers, + - * /, comparisons (chained too), and/or."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name) and node.id == "inf":  # ratio's figure for "too fast to time"
        return math.inf
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(right_node)
            if type(op) not in _OPERATORS or not _OPERATORS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        results = [bool(_evaluate(v)) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    raise BenchError(f"not a number or an arithmetic comparison: {ast.dump(node)}")


def condition_holds(condition: str) -> bool:
    """Whether `condition` holds: arithmetic over numbers compared, as the scripts write a
    target ("0.93 >= 0.9", "81234 * 1024 <= 134217728", "-0.5 <= +0.12 <= 0.5", with "and"
    and "or"). The figures are floats, which bash cannot compare; only numbers and operators
    are accepted (the condition is evaluated, not executed)."""
    try:
        tree = ast.parse(condition.strip(), mode="eval")
    except SyntaxError:
        raise BenchError(f"cannot read the condition {condition!r}") from None
    return bool(_evaluate(tree))


def verdict(condition: str, met: str = "met", not_met: str = "NOT met") -> str:
    """`met` when `condition` (condition_holds) holds, `not_met` otherwise: the word a target's
    line ends with ("met"/"NOT met", or "within"/"OVER" for a memory budget)."""
    return met if condition_holds(condition) else not_met


def speed_verdict(speedup: str, target: float, floor: float) -> str:
    """convert.sh's judgement of a speed ratio (RATIO, maybe "inf"): OK at or above the target,
    BELOW TARGET above the floor it must pass, FAIL otherwise."""
    value = float(speedup)
    if value >= target:
        return f"OK (target >= {awk_number(target)}x)"
    if value > floor:
        return f"BELOW TARGET (target >= {awk_number(target)}x)"
    return f"FAIL (must be > {awk_number(floor)}x, target >= {awk_number(target)}x)"


def memory_verdict(peak_mb: float, output_mb: float, input_mb: float) -> str:
    """convert.sh's judgement of glove-convert's peak RSS: it should grow with what it writes
    (within 1.5 x the .emb), not with the text it reads."""
    if peak_mb <= 1.5 * output_mb and peak_mb < input_mb:
        return "OK: O(output)"
    if peak_mb < input_mb:
        return "HIGH: above 1.5x output"
    return "BAD: at least the input text size"


# ---- units and rates --------------------------------------------------------------------------


def mib(kib: float, decimals: int = 0) -> str:
    """KiB (GNU time's %M, getrusage's ru_maxrss) in MB of 2^20 bytes."""
    return f"{kib / 1024:.{decimals}f}"


def mib_of_bytes(size: float, decimals: int = 1) -> str:
    """Bytes (a file's size) in MB of 2^20 bytes."""
    return f"{size / 1048576:.{decimals}f}"


def gigabytes(size: float) -> str:
    """Bytes in GB of 10^9 bytes, two decimals (GPU memory is sold and reported in those)."""
    return f"{size / 1e9:.2f}"


_SIZE_FACTORS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def size_bytes(size: str) -> int:
    """embed-train's --memory SIZE in bytes ("128M", "4G", "1.5GiB"): CLI11's suffixes k, M, G,
    T are powers of 1024, with or without a trailing B or iB."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", size)
    if not m:
        raise BenchError(f"not a size: {size!r}")
    return round(float(m.group(1)) * _SIZE_FACTORS[m.group(2).upper()])


def rate(count: float, seconds: float, divide_by: float = 1, spec: str = ".0f", suffix: str = "") -> str:
    """count / seconds (words/s, records/s, queries/s, bytes/s), divided by `divide_by` (1e3 for
    "k", 1e6 for "M"), in `spec` then `suffix`; "inf" for a run too fast to time (0 s)."""
    if seconds <= 0:
        return "inf"
    return formatted(count / seconds / divide_by, spec, suffix)


def scaled(value: float, divide_by: float = 1, times: float = 1, spec: str = ".0f", suffix: str = "") -> str:
    """value / divide_by * times in `spec`, then `suffix` ("12.345M", "87.5%")."""
    return formatted(value / divide_by * times, spec, suffix)


def elapsed(start: float, end: float, decimals: int = 1, unit: str = "s") -> str:
    """Seconds (or milliseconds, unit "ms") from START to END, both `date +%s.%N`. The script
    takes END itself, right after what it times: this process's start-up is not in it."""
    seconds = end - start
    return f"{seconds * 1000 if unit == 'ms' else seconds:.{decimals}f}"


# ---- embed-train's --metrics file -------------------------------------------------------------


def epoch_events(metrics_path: str) -> list[dict]:
    """The "epoch" events of an embed-train --metrics file (a JSON object per line), in order.
    Raises BenchError when there is none: a run without a finished epoch has no figures."""
    epochs = []
    with open(metrics_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                event = json.loads(line)
                if event.get("event") == "epoch":
                    epochs.append(event)
    if not epochs:
        raise BenchError(f"{metrics_path}: no epoch events")
    return epochs


def _loss(event: dict) -> float:
    """An epoch's loss (GloVe: its cost); JSON has no inf or NaN, so a diverged run's is null."""
    return math.nan if event["loss"] is None else float(event["loss"])


def epoch_figures(metrics_path: str) -> dict:
    """The epochs of a --metrics file summed up (full precision: the caller rounds):
      epochs_run  epoch events;  unit  words, or records for GloVe
      units       units done by the last epoch (in this run)
      train_s     seconds of the epochs: each epoch's units over its per_second (the rate
                  over that epoch), summed, so that it does not depend on where "time" starts
                  counting (GloVe counts co-occurrences before it trains)
      rate        units / train_s;  last_rate  the last epoch's per_second
      loss        the last epoch's loss (GloVe: its cost)"""
    epochs = epoch_events(metrics_path)
    seconds, before = 0.0, 0
    for e in epochs:
        units = e["done"] - before
        before = e["done"]
        seconds += units / e["per_second"] if e["per_second"] > 0 else 0.0
    last = epochs[-1]
    return {
        "epochs_run": len(epochs),
        "unit": last["unit"],
        "units": last["done"],
        "train_s": seconds,
        "rate": last["done"] / seconds if seconds > 0 else 0.0,
        "last_rate": float(last["per_second"]),
        "loss": _loss(last),
    }


def last_epoch_figures(metrics_path: str) -> dict:
    """big_table.sh's figures of a run's last epoch, formatted: wps (words/s, 4 significant
    digits), loss, rss (peak bytes), and the GPU placement's resident (share of row touches
    served by rows resident on the GPU), h2d and d2h (bytes per corpus word each way),
    gpu_mem (bytes the backend took), wait and copy (percent of the workers' time spent
    waiting for the GPU and copying rows; "-" from builds before 2026-11-27), kernel (percent
    of the epoch the GPU's kernels ran) and batch_ms (a batch's mean milliseconds on the GPU:
    in/queued/kernels/out; "-" from builds before 2026-11-28); 0 for those a CPU run does not
    report."""
    e = epoch_events(metrics_path)[-1]

    def percent(key: str) -> str:
        if key not in e:
            return "-" if "resident_share" in e else "0"
        return f"{100 * e[key]:.0f}"

    return {
        "wps": f"{e['per_second']:.4g}",
        "loss": "nan" if e["loss"] is None else f"{e['loss']:.4f}",
        "rss": e["peak_rss"],
        "resident": f"{e.get('resident_share', 0):.4f}",
        "h2d": f"{e.get('to_gpu_per_item', 0):.0f}",
        "d2h": f"{e.get('from_gpu_per_item', 0):.0f}",
        "gpu_mem": e.get("gpu_memory", 0),
        "wait": percent("gpu_wait_share"),
        "copy": percent("row_copy_share"),
        "kernel": percent("kernel_share"),
        "batch_ms": "/".join(f"{1e3 * e[k]:.2f}" for k in ("batch_in_s", "batch_queued_s", "batch_kernel_s", "batch_out_s"))
        if "batch_kernel_s" in e else ("-" if "resident_share" in e else "0"),
    }


def epoch_costs(metrics_path: str) -> list[float]:
    """The loss (GloVe: cost) after each epoch, in order."""
    return [_loss(e) for e in epoch_events(metrics_path)]


def largest_cost_difference(curve_pairs: Sequence[tuple[str, str]]) -> str:
    """The largest relative difference |b - a| / a, in percent to two decimals, between the
    costs of the same epoch in two runs of the same seed (METRICS_A, METRICS_B), over all
    pairs: glove.sh's check that records streamed from disk train as records in memory do.
    Curves of different lengths are an error (a run stopped early is not like for like)."""
    worst = 0.0
    for path_a, path_b in curve_pairs:
        costs_a, costs_b = epoch_costs(path_a), epoch_costs(path_b)
        if len(costs_a) != len(costs_b):
            raise BenchError(f"{path_a} has {len(costs_a)} epochs, {path_b} {len(costs_b)}")
        for a, b in zip(costs_a, costs_b):
            if a > 0:
                worst = max(worst, abs(b - a) / a)
    return f"{100 * worst:.2f}"


# ---- embed-query eval -------------------------------------------------------------------------


def eval_figures(json_path: str) -> list:
    """From embed-query eval --format json: analogy accuracy (percent; 0 when no question was
    answered), correct, answered, questions, WordSim-353 Spearman, restrict (the words eval
    knew, at most --restrict)."""
    with open(json_path, encoding="utf-8") as f:
        d = json.load(f)
    a, w = d["analogies"], d["word_pairs"]
    accuracy = a["accuracy"] if a["accuracy"] is not None else 0
    return [accuracy, a["correct"], a["answered"], a["questions"], w["spearman"], d["restrict"]]


def _ranks(values: list) -> list:
    """1-based ranks, ties given the mean of their ranks (as scipy's rankdata)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: list, y: list) -> float:
    """Spearman's rank correlation: Pearson's of the ranks (ties averaged), as scipy's."""
    if len(x) != len(y) or len(x) < 2:
        raise BenchError(f"spearman needs two equal lists of at least 2 values, not {len(x)} and {len(y)}")
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    if vx == 0 or vy == 0:
        raise BenchError("spearman of a constant list")
    return cov / math.sqrt(vx * vy)


def pairs_spearman(gold_path: str, answers_path: str) -> str:
    """Spearman between a word-pair file's scores ("w1<TAB>w2<TAB>score", # comments) and a
    model's similarities for the same pairs (embed-query --format tsv: "w1<TAB>w2<TAB>sim"),
    matched by the pair; every gold pair must be answered. "SPEARMAN PAIRS"."""
    gold = []
    for line in read_log(gold_path).splitlines():
        if line.startswith("#") or not line.strip():
            continue
        w1, w2, score = line.split("\t")[:3]
        gold.append((w1, w2, float(score)))
    answers = {}
    for line in read_log(answers_path).splitlines():
        fields = line.split("\t")
        if len(fields) == 3:
            answers[(fields[0], fields[1])] = float(fields[2])
    missing = [f"{w1} {w2}" for w1, w2, _ in gold if (w1, w2) not in answers]
    if missing:
        raise BenchError(f"{len(missing)} pairs unanswered in {answers_path}, such as {missing[0]}")
    value = spearman([g for _, _, g in gold], [answers[(w1, w2)] for w1, w2, _ in gold])
    return f"{value:.4f} {len(gold)}"


def fasttext_rate(log_path: str, threads: int) -> str:
    """fastText's training words/s: the last "words/sec/thread: N" of its progress output
    (carriage returns between updates) times the threads."""
    found = re.findall(r"words/sec/thread:\s*([0-9]+)", read_log(log_path))
    if not found:
        raise BenchError(f"no words/sec/thread in {log_path}")
    return str(int(found[-1]) * threads)


# ---- embed-train's logs -----------------------------------------------------------------------


def read_log(path: str) -> str:
    """A log's text (bytes that are not UTF-8 replaced: a log is read for its figures)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def glove_count_figures(log_path: str) -> dict:
    """GloVe's counting pass, from embed-train's "counted N (word, context) pairs in S s (...),
    merged them into M co-occurrences in S s" line (--metrics covers training only): pairs,
    count_s, merge_s, spilled (sorted runs spilled to disk, 0 when the line names none),
    coocs (merged co-occurrences)."""
    m = re.search(r"counted (\d+) .* pairs in ([\d.]+) s \(([^)]*)\), merged them into (\d+) co-occurrences in ([\d.]+) s",
                  read_log(log_path))
    if not m:
        raise BenchError(f"{log_path}: no 'counted ... merged them into' line")
    spilled = re.search(r"(\d+) sorted runs spilled", m.group(3))
    return {"pairs": m.group(1), "count_s": m.group(2), "merge_s": m.group(5),
            "spilled": spilled.group(1) if spilled else "0", "coocs": m.group(4)}


def glove_run_figures(log_path: str, metrics_path: str, wall_s: float | None = None) -> dict:
    """glove.sh's stage figures of one training run: glove_count_figures of its log, then from
    its --metrics: epochs_run, train_s (the epochs' seconds, 2 decimals), per_epoch_s (3),
    mrec_s (records x epochs / train_s, in millions, 2), cost (the last epoch's, to the 4
    decimals embed-train's log prints); given the run's wall seconds, other_s: wall - count -
    merge - train (2 decimals), the time of the stages neither figure covers (reading the
    corpus, building the tables, writing the vectors)."""
    figures = glove_count_figures(log_path)
    epochs = epoch_figures(metrics_path)
    n, train_s = epochs["epochs_run"], epochs["train_s"]
    # train_s is rounded first: other_s is what the table's other columns leave of the wall.
    figures.update({"epochs_run": str(n), "train_s": f"{train_s:.2f}", "per_epoch_s": f"{train_s / n:.3f}",
                    "mrec_s": f"{epochs['rate'] / 1e6:.2f}", "cost": f"{epochs['loss']:.4f}"})
    if wall_s is not None:
        other_s = wall_s - float(figures["count_s"]) - float(figures["merge_s"]) - float(figures["train_s"])
        figures["other_s"] = f"{other_s:.2f}"
    return figures


_BYTES_UNIT = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
_SIZE = r"([\d.]+) (B|kB|MB|GB|TB)"


def _largest_size_printed_as(number: str, unit: str) -> float:
    """The largest size in bytes that embed-train prints as "NUMBER UNIT" (3 significant
    digits, powers of 1000): NUMBER plus half its last digit."""
    decimals = len(number.partition(".")[2])
    return (float(number) + 0.5 * 10**-decimals) * _BYTES_UNIT[unit]


def glove_min_memory(log_path: str) -> str:
    """From embed-train's refusal of a --memory budget, the smallest budget it names, in MiB
    rounded up ("161M"); "" when the log holds no such refusal. Today's builds name it as an
    option, in whole MiB already rounded up: "... give at least --memory 161M". Older ones
    printed sizes, taken here at the largest value that rounds to what was printed:
      "... give at least --memory 9.1 MB" (counting, or the tables alone), and
      "... too small to train: N co-occurrence records take A MB (and B MB while they are made)
      and the two tables of R rows C MB" (training: A + B + C)."""
    text = read_log(log_path)
    option = re.search(r"give at least --memory (\d+M)\b", text)
    if option:
        return option.group(1)
    need = None
    m = re.search(r"give at least (?:--memory )?" + _SIZE, text)
    if m:
        need = _largest_size_printed_as(m.group(1), m.group(2))
    else:
        m = re.search(r"too small to train:(.*)", text)
        if m:
            need = sum(_largest_size_printed_as(n, u) for n, u in re.findall(_SIZE, m.group(1)))
    return f"{math.ceil(need / 2**20)}M" if need else ""


def _first_group(log_path: str, pattern: str, what: str) -> str:
    """The first group of the first match of `pattern` in the log; BenchError naming `what`
    when there is none."""
    m = re.search(pattern, read_log(log_path))
    if not m:
        raise BenchError(f"{log_path}: no {what} (no match for {pattern})")
    return m.group(1)


def glove_table_sizes(log_path: str) -> dict:
    """From a GloVe training log: rows (the vocabulary's words, from "wrote FILE (N words")
    and records (from "N co-occurrence records ("), which size glove.sh's disk budget."""
    return {"rows": _first_group(log_path, r"wrote \S+ \((\d+) words", "'wrote ... (N words' line"),
            "records": _first_group(log_path, r"(\d+) co-occurrence records \(", "'N co-occurrence records (' line")}


def glove_last_cost(log_path: str) -> str:
    """The last "cost C" that embed-train's GloVe log printed (its last epoch's)."""
    costs = re.findall(r"cost ([\d.]+)", read_log(log_path))
    if not costs:
        raise BenchError(f"{log_path}: no 'cost' in it (no epoch finished)")
    return costs[-1]


def epoch_items(log_path: str) -> str:
    """The words (GloVe: records) one epoch trains on, from the first epoch line's "N words
    in" or "N records in", which every embed-train build prints (compare.sh times builds
    that may lack --metrics)."""
    return _first_group(log_path, r"(\d+) (?:words|records) in ", "epoch line ('N words in' or 'N records in')")


def mpi_sent_bytes(log_path: str) -> str:
    """The bytes rank 0 handed to MPI_Allreduce, from its last "... sent by this rank (N bytes)"
    line (-v); "0" for a run of one process, which prints none."""
    sent = re.findall(r"sent by this rank \((\d+) bytes\)", read_log(log_path))
    return sent[-1] if sent else "0"


# ---- the benchmark helpers' outputs -----------------------------------------------------------


def named_figures(text: str) -> dict[str, list[str]]:
    """Lines "NAME VALUE [NAME VALUE ...]" (bench-cluster-quality, bench-gpu-bandwidth) as
    {NAME: [VALUE, ...]} by each line's first word."""
    figures = {}
    for line in text.splitlines():
        words = line.split()
        if words:
            figures[words[0]] = words[1:]
    return figures


def cluster_quality(text: str, k: int = 10) -> dict:
    """From bench-cluster-quality's output: share (the share of a word's k nearest neighbours
    in its own planted cluster) and thirds ("HEAD/MIDDLE/TAIL": the same over the sample's
    frequency thirds, 3 decimals)."""
    figures = named_figures(text)
    name = f"cluster_share_at_{k}"
    if name not in figures or "head" not in figures:
        raise BenchError(f"no '{name}' or 'head' line in bench-cluster-quality's output: {text.strip()!r}")
    parts = figures["head"]  # head H middle M tail T
    thirds = "/".join(f"{float(v):.3f}" for v in parts[0::2])
    return {"share": figures[name][0], "thirds": thirds}


def gpu_bandwidths(text: str) -> list[str]:
    """bench-gpu-bandwidth's three figures, GB/s: device copy, host->device, device->host."""
    figures = named_figures(text)
    names = ["device_GBps", "h2d_GBps", "d2h_GBps"]
    if not all(n in figures for n in names):
        raise BenchError(f"bench-gpu-bandwidth printed no {', '.join(names)}: {text.strip()!r}")
    return [figures[n][0] for n in names]


def ann_index_share(info_line: str) -> str:
    """The index's size as a percentage of the vectors', from glove-convert --info's "index"
    line ("..., 12% of the vectors")."""
    m = re.search(r", (\d+)% of", info_line)
    if not m:
        raise BenchError(f"no 'N% of' in the index line {info_line!r}")
    return m.group(1)


# ---- formulas ---------------------------------------------------------------------------------


def subsample_keep(corpus_path: str, sample: float = 1e-4, min_count: int = 5) -> float:
    """The fraction of the corpus's words (of words seen at least min_count times) that
    word2vec's subsampling at `sample` keeps: a word of count c is kept with probability
    min(1, (sqrt(c / t) + 1) * t / c), t = sample x the words counted. Sizes gpu.sh's roofline."""
    with open(corpus_path, encoding="utf-8", errors="replace") as f:
        counts = collections.Counter(f.read().split())
    counts = {w: c for w, c in counts.items() if c >= min_count}
    total = sum(counts.values())
    if total == 0:
        raise BenchError(f"{corpus_path}: no word occurs {min_count} times")
    t = sample * total
    return sum(min(1.0, (math.sqrt(c / t) + 1) * t / c) * c for c in counts.values()) / total


def skipgram_roofline(dim: float, keep: float, device_gbps: float, window: int = 5, negative: int = 5) -> str:
    """Corpus words/s that the device copy bandwidth allows skip-gram with window-shared
    negatives (../shared/design/gpu-training.md §2): a kept word reads and writes C + K + 1 rows
    (C = window + 1 on average under word2vec's reduced windows), 2 x dim x 4 bytes each, so
    bytes per corpus word = keep x (C + K + 1) x 2 x dim x 4. Three significant digits."""
    rows = (window + 1) + negative + 1
    return f"{device_gbps * 1e9 / (keep * rows * 2 * dim * 4):.3g}"


def glove_roofline(dim: float, device_gbps: float, h2d_gbps: float) -> str:
    """Co-occurrence records/s GloVe on the GPU can reach: a record reads and writes its two
    rows' vector, bias and accumulators (2 x 2 x (dim + 1) x 4 bytes each way) over the device
    copy bandwidth, and its 16 bytes cross PCIe (the records stream from host memory) over
    the host->device bandwidth; the lower of the two. Three significant digits."""
    device_bound = device_gbps * 1e9 / (2 * 2 * (dim + 1) * 4 * 2)
    pcie_bound = h2d_gbps * 1e9 / 16
    return f"{min(device_bound, pcie_bound):.3g}"


def parse_roofline_probe(text: str) -> dict:
    """bench-roofline's table: {(level, threads): {column: value}}."""
    columns = ["fma", "mul_add", "row_loop", "stream_read", "stream_update", "rows_small", "rows_big"]
    table = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 9 and fields[0] in ("avx512", "avx2", "baseline") and fields[1].isdigit():
            table[(fields[0], int(fields[1]))] = dict(zip(columns, map(float, fields[2:])))
    return table


def cpu_roofline(probe_paths: list[str], runs_path: str, negative: int = 5) -> str:
    """roofline.sh's table: for each training run (a line of RUNS: model dim path threads words
    per_second examples), the work per corpus word and the fraction of the machine's ceilings it
    reaches (bench-roofline's output per dim, PROBES: one file per dim, named *-dimD.txt).
    Per word, with P = dim rounded up to 16 floats, K negatives, C the mean context rows of a
    window (skip-gram's examples over CBOW's at the same dim and path: both count windows alike),
    W windows per word (CBOW's examples per word):
      skip-gram: flops = (examples/word) x 6 (1 + K) P   (1 + K dots, the input's gradient,
                 1 + K steps, the input's step: row_ops.h)
      CBOW:      flops = W x (6 (1 + K) P + 2 C P)       (per output a dot, the mean's gradient
                 and the step; the mean and the inputs' steps)
      rows:      bytes = W x (1 + K + C) x 2 x 4P        (each row a window touches read and
                 written once beyond L1)
    The arithmetic ceiling is the probe's fma column (mul+add at the baseline, which has no
    FMA) at the run's thread count; the memory one its rows-small column (random rows of a
    table the size of text8-head's)."""
    probes = {}
    for path in probe_paths:
        dim = int(re.search(r"dim(\d+)", path).group(1))
        probes[dim] = parse_roofline_probe(_read(path))
    runs = []
    for line in _read(runs_path).splitlines():
        if line.strip():
            model, dim, path, threads, words, per_second, examples = line.split()
            runs.append((model, int(dim), path, int(threads), float(words), float(per_second), float(examples)))
    windows = {(d, p): e / w for m, d, p, t, w, r, e in runs if m == "cbow"}
    contexts = {(d, p): e / w for m, d, p, t, w, r, e in runs if m == "skipgram"}
    out = [f"{'model':9} {'dim':>4} {'path':9} {'thr':>3} {'Mwords/s':>9} {'kflop/word':>10} {'KB/word':>8} "
           f"{'GFLOP/s':>8} {'% peak':>7} {'% loop':>7} {'GB/s':>6} {'% rows':>7}"]
    for model, dim, path, threads, words, per_second, examples in runs:
        p = (dim + 15) // 16 * 16
        w = windows.get((dim, path))
        c = contexts[(dim, path)] / w if w and (dim, path) in contexts else None
        if model == "skipgram":
            flops = examples / words * 6 * (1 + negative) * p
        elif c is not None:
            flops = w * (6 * (1 + negative) * p + 2 * c * p)
        else:
            continue
        row_bytes = w * (1 + negative + c) * 2 * 4 * p if w and c else float("nan")
        probe = probes.get(dim, {}).get((path, threads), {})
        peak = probe.get("fma") or probe.get("mul_add") or float("nan")
        loop = probe.get("row_loop", float("nan")) if model == "skipgram" else float("nan")
        gflops = flops * per_second / 1e9
        gbps = row_bytes * per_second / 1e9
        out.append(f"{model:9} {dim:>4} {path:9} {threads:>3} {per_second / 1e6:>9.2f} {flops / 1e3:>10.1f} "
                   f"{row_bytes / 1e3:>8.1f} {gflops:>8.1f} {100 * gflops / peak:>7.1f} {100 * gflops / loop:>7.1f} "
                   f"{gbps:>6.1f} {100 * gbps / probe.get('rows_small', float('nan')):>7.1f}")
    return "\n".join(out)


def cluster_chance(cluster: int, vocab: int) -> str:
    """The share of a word's neighbours in its own cluster that chance gives: (cluster - 1) /
    (vocab - 1), two decimals."""
    return f"{(cluster - 1) / (vocab - 1):.2f}"


# ---- ann.sh's summary -------------------------------------------------------------------------


def _jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _smallest_ef_reaching(rows: list[dict], target: float = 0.95) -> dict | None:
    """The row of the smallest efSearch whose recall@10 reaches `target`: where each index is
    compared (at matched recall, not at the same ef, whose meaning differs between them)."""
    reached = [r for r in rows if "ef" in r and r["recall"] >= target]
    return min(reached, key=lambda r: r["ef"]) if reached else None


def ann_summary(ours_path: str, peers_path: str, index_share: float, first_ms: float) -> list[str]:
    """ann.sh's summary lines: the exact search, ours, faiss and hnswlib at recall >= 0.95, then
    the targets (issue 24): one at a time >= 20x exact, batched >= exact batched, within 1.5x
    of the best peer, index <= 25% of the vectors, first answer <= 30 ms."""
    ours, peers = _jsonl(ours_path), _jsonl(peers_path)
    exact = next((r for r in ours if r["kind"] == "exact"), None)
    if exact is None:
        raise BenchError(f"{ours_path}: no exact-search line")
    ann_rows = [r for r in ours if r["kind"] == "ann"]
    mine = _smallest_ef_reaching(ann_rows)
    lines = [f"{'':10} {'ef':>4} {'recall':>7} {'q/s 1 thread':>13} {'q/s batch':>10}",
             f"{'exact':10} {'':>4} {1.0:7.4f} {exact['qps_one_at_a_time']:13.1f} {exact['qps_batch']:10.1f}"]
    best_peer = 0.0
    for name, rows in [("embed", ann_rows),
                       ("faiss", [r for r in peers if r["kind"] == "faiss"]),
                       ("hnswlib", [r for r in peers if r["kind"] == "hnswlib"])]:
        r = _smallest_ef_reaching(rows)
        if r is None:
            lines.append(f"{name:10} (no ef reached recall 0.95, or skipped)")
            continue
        lines.append(f"{name:10} {r['ef']:4d} {r['recall']:7.4f} {r['qps_one_thread']:13.1f} {r['qps_threads']:10.1f}")
        if name != "embed":
            best_peer = max(best_peer, r["qps_one_thread"])

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    if mine:
        one = mine["qps_one_thread"] / exact["qps_one_at_a_time"]
        lines.append(f"target: one at a time >= 20x exact: {one:.1f}x {met(one >= 20)}")
        lines.append(f"target: batched >= exact batched: {mine['qps_threads'] / exact['qps_batch']:.2f}x "
                     f"{met(mine['qps_threads'] >= exact['qps_batch'])}")
        if best_peer:
            lines.append(f"target: within 1.5x of the best peer at matched recall: best peer / ours = "
                         f"{best_peer / mine['qps_one_thread']:.2f} {met(best_peer / mine['qps_one_thread'] <= 1.5)}")
    lines.append(f"target: index <= 25% of the vectors: {index_share:.0f}% {met(index_share <= 25)}")
    lines.append(f"target: first answer <= 30 ms: {first_ms:.1f} ms {met(first_ms <= 30)}")
    return lines


# ---- running and timing -----------------------------------------------------------------------


def measured_run(time_path: str, command: Sequence[str]) -> int:
    """Runs `command`, then writes "WALL_SECONDS PEAK_KIB" to time_path (3 decimals; peak RSS
    of the child from getrusage) and returns its status: GNU time's '%e %M' where GNU time is
    not installed (the device machine)."""
    start = time.monotonic()
    status = subprocess.run(command).returncode
    wall = time.monotonic() - start
    with open(time_path, "w", encoding="utf-8") as f:
        f.write(f"{wall:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\n")
    return status


def stamp_lines(lines: Iterable[str], name: str, start: float, write: Callable[[str], None],
                clock: Callable[[], float] = time.time) -> None:
    """Each line after the seconds since START (`date +%s.%N`) and [NAME], as it comes: a run
    stopped by a timeout still shows where its time went."""
    for line in lines:
        write(f"   {clock() - start:6.1f} s [{name}] {line.rstrip(chr(10))}\n")


# ---- command line -----------------------------------------------------------------------------


def assignments(figures: dict) -> str:
    """Figures as shell assignments NAME=VALUE on one line, for the script to eval (values
    are numbers and single words: nothing to quote). Floats keep full precision (repr)."""
    return " ".join(f"{name}={value!r}" if isinstance(value, float) else f"{name}={value}"
                    for name, value in figures.items())


def _stamp_stdin(name: str, start: float) -> None:
    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    stamp_lines(sys.stdin, name, start, write)


def _read(path: str) -> str:
    """A file's text, or standard input for "-"."""
    return sys.stdin.read() if path == "-" else read_log(path)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="benchstats.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")

    def command(name: str, run: Callable, help_text: str) -> argparse.ArgumentParser:
        escaped = help_text.replace("%", "%%")  # argparse formats help with %
        s = sub.add_parser(name, help=escaped, description=escaped)
        s.set_defaults(run=run)
        return s

    # lists: each VALUES argument may hold several numbers, space-separated
    for name, function in [("median", median), ("maximum", maximum), ("mean", mean), ("sum", total)]:
        command(name, lambda a, f=function: f(numbers(a.values)), f"the {name} of VALUES").add_argument(
            "values", nargs="*")
    for name, function, help_text in [("mean-spread", mean_spread, '"MEAN ± HALF_RANGE" of VALUES'),
                                      ("mean-sd", mean_sd, '"MEAN +- SAMPLE_SD" of VALUES'),
                                      ("spread", spread, "max - min of VALUES")]:
        s = command(name, lambda a, f=function: f(numbers(a.values), a.decimals), help_text)
        s.add_argument("decimals", type=int)
        s.add_argument("values", nargs="*")

    s = command("ratio", lambda a: ratio(a.numerator, a.denominator), "NUMERATOR / DENOMINATOR, 2 decimals")
    s.add_argument("numerator", type=float)
    s.add_argument("denominator", type=float)
    s = command("diff", lambda a: signed_difference(a.a, a.b, a.decimals), "A - B with its sign")
    s.add_argument("a", type=float)
    s.add_argument("b", type=float)
    s.add_argument("decimals", type=int)
    s = command("verdict", lambda a: verdict(a.condition, *a.words), "met / NOT met (or the words given)")
    s.add_argument("condition")
    s.add_argument("words", nargs="*", help="MET NOT_MET")
    s = command("speed-verdict", lambda a: speed_verdict(a.ratio, a.target, a.floor), "convert.sh's speed judgement")
    s.add_argument("ratio")
    s.add_argument("target", type=float)
    s.add_argument("floor", type=float)
    s = command("memory-verdict", lambda a: memory_verdict(a.peak_mb, a.output_mb, a.input_mb),
                "convert.sh's peak RSS judgement")
    for name in ["peak_mb", "output_mb", "input_mb"]:
        s.add_argument(name, type=float)

    s = command("mib", lambda a: mib(a.kib, a.decimals), "KiB in MB of 2^20 bytes")
    s.add_argument("kib", type=float)
    s.add_argument("decimals", type=int, nargs="?", default=0)
    s = command("mib-of-bytes", lambda a: mib_of_bytes(a.bytes, a.decimals), "bytes in MB of 2^20 bytes")
    s.add_argument("bytes", type=float)
    s.add_argument("decimals", type=int, nargs="?", default=1)
    s = command("gb", lambda a: gigabytes(a.bytes), "bytes in GB of 10^9 bytes")
    s.add_argument("bytes", type=float)
    s = command("size-bytes", lambda a: size_bytes(a.size), "a --memory size in bytes")
    s.add_argument("size")
    s = command("rate", lambda a: rate(a.count, a.seconds, a.divide_by, a.format, a.suffix), "COUNT / SECONDS")
    s.add_argument("count", type=float)
    s.add_argument("seconds", type=float)
    s = command("scaled", lambda a: scaled(a.value, a.divide_by, a.times, a.format, a.suffix), "VALUE / BY x TIMES")
    s.add_argument("value", type=float)
    s.add_argument("--times", type=float, default=1)
    for s in (sub.choices["rate"], sub.choices["scaled"]):
        s.add_argument("--divide-by", type=float, default=1)
        s.add_argument("--format", default=".0f", help="a format spec: .0f, .3f, .4g, 6.0f")
        s.add_argument("--suffix", default="")
    s = command("elapsed", lambda a: elapsed(a.start, a.end, a.decimals, a.unit), "END - START")
    s.add_argument("start", type=float)
    s.add_argument("end", type=float)
    s.add_argument("decimals", type=int, nargs="?", default=1)
    s.add_argument("--unit", choices=["s", "ms"], default="s")

    command("epoch-figures", lambda a: assignments(epoch_figures(a.metrics)),
            "a --metrics file's epochs, as shell assignments").add_argument("metrics")
    command("last-epoch", lambda a: assignments(last_epoch_figures(a.metrics)),
            "big_table.sh's last-epoch figures, as shell assignments").add_argument("metrics")
    s = command("cost-difference", lambda a: largest_cost_difference(list(zip(a.metrics[0::2], a.metrics[1::2]))),
                "the largest relative cost difference between paired runs, percent")
    s.add_argument("metrics", nargs="+", help="METRICS_A METRICS_B [...]")
    command("eval", lambda a: " ".join(map(str, eval_figures(a.json))),
            "accuracy correct answered questions spearman restrict").add_argument("json")
    s = command("pairs-spearman", lambda a: pairs_spearman(a.gold, a.answers),
                "Spearman of a word-pair file against a model's similarities: SPEARMAN PAIRS")
    s.add_argument("gold")
    s.add_argument("answers")
    s = command("fasttext-rate", lambda a: fasttext_rate(a.log, a.threads), "fastText's training words/s from its log")
    s.add_argument("log")
    s.add_argument("threads", type=int)
    command("glove-count", lambda a: assignments(glove_count_figures(a.log)),
            "GloVe's counting figures, as shell assignments").add_argument("log")
    s = command("glove-run", lambda a: assignments(glove_run_figures(a.log, a.metrics, a.wall)),
                "glove.sh's stage figures of a run, as shell assignments")
    s.add_argument("log")
    s.add_argument("metrics")
    s.add_argument("--wall", type=float, help="the run's wall seconds, for other_s")
    command("glove-min-memory", lambda a: glove_min_memory(a.log),
            "the smallest --memory a refusal names").add_argument("log")
    command("glove-sizes", lambda a: assignments(glove_table_sizes(a.log)),
            "rows and records of a GloVe log").add_argument("log")
    command("glove-last-cost", lambda a: glove_last_cost(a.log), "the last cost a GloVe log printed").add_argument("log")
    command("epoch-items", lambda a: epoch_items(a.log), "words (records) per epoch").add_argument("log")
    command("mpi-sent-bytes", lambda a: mpi_sent_bytes(a.log), "bytes rank 0 sent").add_argument("log")
    s = command("cluster-quality", lambda a: assignments(cluster_quality(_read(a.output))),
                "bench-cluster-quality's share and thirds, as shell assignments")
    s.add_argument("output", help="its output, or - for standard input")
    command("gpu-bandwidths", lambda a: " ".join(gpu_bandwidths(_read(a.output))),
            "bench-gpu-bandwidth's device, h2d and d2h GB/s").add_argument("output")
    command("ann-index-share", lambda a: ann_index_share(a.line), "the index's % of the vectors").add_argument("line")
    s = command("subsample-keep", lambda a: repr(subsample_keep(a.corpus)), "the fraction subsampling keeps")
    s.add_argument("corpus")
    s = command("skipgram-roofline", lambda a: skipgram_roofline(a.dim, a.keep, a.device_gbps), "words/s")
    for name in ["dim", "keep", "device_gbps"]:
        s.add_argument(name, type=float)
    s = command("glove-roofline", lambda a: glove_roofline(a.dim, a.device_gbps, a.h2d_gbps), "records/s")
    for name in ["dim", "device_gbps", "h2d_gbps"]:
        s.add_argument(name, type=float)
    s = command("cpu-roofline", lambda a: cpu_roofline(a.probes, a.runs, a.negative), "roofline.sh's table")
    s.add_argument("runs", help="a line per run: model dim path threads words per_second examples")
    s.add_argument("probes", nargs="+", help="bench-roofline's output per dim, files named *-dimD.txt")
    s.add_argument("--negative", type=int, default=5)
    s = command("cluster-chance", lambda a: cluster_chance(a.cluster, a.vocab), "chance's share of neighbours")
    s.add_argument("cluster", type=int)
    s.add_argument("vocab", type=int)
    s = command("ann-summary", lambda a: "\n".join(ann_summary(a.ours, a.peers, a.index_share, a.first_ms)),
                "ann.sh's summary")
    s.add_argument("ours")
    s.add_argument("peers")
    s.add_argument("index_share", type=float)
    s.add_argument("first_ms", type=float)

    # These two do their own output and exit status.
    s = command("measure", lambda a: sys.exit(measured_run(a.time_file, a.cmd)),
                "run COMMAND, write 'WALL_S PEAK_KIB' to TIME_FILE")
    s.add_argument("time_file")
    s.add_argument("cmd", nargs=argparse.REMAINDER, metavar="COMMAND")
    s = command("stamp", lambda a: _stamp_stdin(a.name, a.start), "standard input's lines, stamped")
    s.add_argument("name")
    s.add_argument("start", type=float)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        result = args.run(args)
    except (BenchError, OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
        print(f"benchstats.py {args.command}: {what}", file=sys.stderr)
        return 1
    if result is not None:
        print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
