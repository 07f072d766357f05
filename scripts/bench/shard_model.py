#!/usr/bin/python3
"""The traffic model of sharded tables (issue 70, embed-train --shard-tables): bytes a rank moves
per corpus word it trains when each of N ranks owns 1/N of the rows (owner = hash(id) mod N) and
every rank keeps the K most frequent rows of both tables (--sync-rows) replicated, their vectors
summed across the ranks every round. ../shared/design/sharded-tables.md derives the per-touch
form; this one counts a row once per round however often the round touches it (a round fetches
each row it needs once and returns one change), which is what makes the tail cheap.

Per round a rank trains B corpus words (--sync-words). Per corpus word, after subsampling
(word2vec's rule, t), the expected touches of row v are:
  input table:  kept(v): an occurrence is the context of some c = window + 1 centres, but
                one occurrence needs its row once a round (counting c touches instead
                overstated the measured rows 1.6x: bench/RESULTS.md, issue 70);
  output table: kept(v) (centre rows) + n * noise(v) * sum(kept) (n negatives a kept word's
                window, drawn from count^0.75),
with kept(v) = frequency(v) * keep(v). Row v of a table is touched in a round with probability
1 - exp(-B * rate(v)). A touched row that is neither owned (1/N) nor replicated (top K) costs
4D bytes in (its values) and 4D out (its change); D is what goes on the wire (embed pads a
row to 16 floats: 304 at dim 300, and an optimizer's state rides along: give its width).
The replicated rows' vectors are summed every round: 2 tables x K rows x 4d bytes handed to
the all-reduce (d: the vector), which a ring all-reduce moves about twice of each way.

  bytes/word (each way) = 4D/B * [ sum over tables, v past the top K of (1 - 1/N)(1 - exp(-B rate(v))) ]
                          + (N > 1) * 2 * K * 4d / B
  words/s per rank, as built (a round exchanges after its words are trained, so the link and
  the compute take turns) = 1 / (1 / compute + bytes/word / link bytes/s); were the exchange
  overlapped with training (not built: on one machine it is CPU work on the training's own
  cores, bench/RESULTS.md), the lesser of compute and link bytes/s / bytes/word. Latency, and
  the time the ranks wait for the slowest at a round, are not modelled.

The vocabulary: --counts FILE (one "word count" or a count per line, e.g. from embed-train's
vocabulary or `tr -s ' ' '\\n' < corpus | sort | uniq -c`), --corpus FILE (counted here), or
--zipf S --vocab V (count of rank r proportional to r^-S).

Usage:
  shard_model.py (--corpus FILE | --counts FILE | --zipf S --vocab V) [--ranks 2,3,8,64,512]
      [--cache K,...] [--round-words B] [--dim D] [--vector-dim d] [--window W] [--negative N]
      [--sample T] [--compute WORDS_PER_S] [--links 10,100]
Prints a table per cache size: ranks, bytes/word each way (rows, hot rows' sums, both), and
words/s per rank at each link rate (Gb/s) as built and overlapped. Needs numpy.
"""
import argparse
import collections
import sys

import numpy as np


def counts_from(args):
    if args.zipf:
        ranks = np.arange(1, args.vocab + 1, dtype=np.float64)
        return np.floor(1e9 * ranks ** -args.zipf) + 1
    if args.corpus:
        counter = collections.Counter()
        with open(args.corpus, encoding="utf-8", errors="replace") as f:
            for line in f:
                counter.update(line.split())
        counts = np.array(sorted(counter.values(), reverse=True), dtype=np.float64)
    else:
        values = []
        with open(args.counts, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if fields:
                    values.append(float(fields[-1] if not fields[-1].isalpha() else fields[0]))
        counts = np.array(sorted(values, reverse=True), dtype=np.float64)
    return counts[counts >= args.min_count]


def touch_rates(counts, window, negative, sample):
    """Per trained word: the input table's and the output table's touches of each row."""
    total = counts.sum()
    frequency = counts / total
    # word2vec's subsampling: keep a word with probability (sqrt(f/t) + 1) t/f, at most 1.
    keep = np.minimum(1.0, (np.sqrt(frequency / sample) + 1) * sample / frequency) if sample > 0 else np.ones_like(frequency)
    kept = frequency * keep  # per corpus word: the kept occurrences of each row
    noise = counts ** 0.75
    noise /= noise.sum()
    # The input table: each kept occurrence is a context of about window + 1 centres (a
    # window shrunk uniformly to 1..window, both sides), all within one round: its row is
    # fetched once for them. The output table: the centre's row, and the window's negatives.
    del window
    return kept, kept + negative * noise * kept.sum()


def bytes_per_word(rates, ranks, cache, round_words, dim, vector_dim):
    """(rows fetched, hot rows' sums) in bytes per corpus word, each way."""
    moved = 0.0
    for rate in rates:
        tail = rate[cache:]
        touched = -np.expm1(-round_words * tail)  # 1 - exp(-B rate): touched in a round
        moved += (1 - 1 / ranks) * touched.sum()
    rows = 4.0 * dim * moved / round_words
    hot = 2 * cache * 4.0 * vector_dim / round_words if ranks > 1 else 0.0  # both tables' vectors, every round
    return rows, hot


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus")
    source.add_argument("--counts")
    source.add_argument("--zipf", type=float)
    p.add_argument("--vocab", type=int, default=1_000_000)
    p.add_argument("--min-count", type=float, default=5)
    p.add_argument("--ranks", default="2,3,8,64,512")
    p.add_argument("--cache", default="0,1024,65536")
    p.add_argument("--round-words", type=float, default=100_000)
    p.add_argument("--dim", type=int, default=304, help="floats a row on the wire (the vector padded to 16, and any state)")
    p.add_argument("--vector-dim", type=int, default=300, help="floats of a hot row's vector, summed every round")
    p.add_argument("--window", type=int, default=5)
    p.add_argument("--negative", type=int, default=5)
    p.add_argument("--sample", type=float, default=1e-4)
    p.add_argument("--compute", type=float, default=1.0e6, help="a rank's words/s when the network is free")
    p.add_argument("--links", default="10,100", help="Gb/s per machine (one rank a machine)")
    args = p.parse_args()
    if args.zipf and args.vocab < 1:
        p.error("--vocab must be at least 1")
    counts = counts_from(args)
    if len(counts) == 0:
        sys.exit("shard_model: no words left after --min-count")
    rates = touch_rates(counts, args.window, args.negative, args.sample)
    links = [float(x) for x in args.links.split(",")]
    print(f"vocabulary {len(counts):,} rows, {args.dim} floats a row on the wire, window {args.window}, negative {args.negative}, "
          f"sample {args.sample:g}, {args.round_words:,.0f} corpus words a round per rank, compute {args.compute:,.0f} words/s")
    for cache in (int(x) for x in args.cache.split(",")):
        cache = min(cache, len(counts))
        hit_in = rates[0][:cache].sum() / rates[0].sum()
        hit_out = rates[1][:cache].sum() / rates[1].sum()
        print(f"\ncache: top {cache:,} rows of each table ({cache * args.dim * 8 / 2**20:,.0f} MB), "
              f"{hit_in:.1%} of input-row touches, {hit_out:.1%} of output-row touches")
        print(f"{'ranks':>6} {'rows B/w':>9} {'hot B/w':>8} {'bytes/word':>11} " +
              " ".join(f"{f'words/s @{g:g}G':>15} {'overlapped':>11}" for g in links))
        for n in (int(x) for x in args.ranks.split(",")):
            rows, hot = bytes_per_word(rates, n, cache, args.round_words, args.dim, args.vector_dim)
            b = rows + 2 * hot * (1 - 1 / n)  # a ring all-reduce moves 2 (N-1)/N of what it is handed
            cells = []
            for g in links:
                link_words = g * 1e9 / 8 / b if b > 0 else float("inf")  # words/s the link alone carries
                cells.append(f"{1 / (1 / args.compute + 1 / link_words):>15,.0f} {min(args.compute, link_words):>11,.0f}")
            print(f"{n:>6} {rows:>9,.0f} {hot:>8,.0f} {b:>11,.0f} " + " ".join(cells))


if __name__ == "__main__":
    main()
