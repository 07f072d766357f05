#!/usr/bin/env python3
"""Unit tests of scripts/bench/benchstats.py, the benchmarks' statistics and log parsing.

The logs below are excerpts of embed-train, embed-query and benchmark-helper output, trimmed to
the lines a figure comes from: copied from real runs, except where a comment says the excerpt
follows a format string (a message hard to provoke cheaply) or an older build's wording.
Standard library only: run as
  python3 tests/bench/test_benchstats.py
"""

import io
import json
import math
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench"))
import benchstats as bs  # noqa: E402

# embed-train --model glove on text8-200k, 15 epochs (the counting, records and wrote lines).
GLOVE_LOG = """\
embed-train: /work/main/data/text8-200k.txt.gz: 201084 words, 19127 distinct; vocabulary 4554 words (min-count 5), 88.3% of the text
embed-train: counted 3551890 (word, context) pairs in 0.02 s (67.8% in a dense table of 221999 cells), merged them into 966938 co-occurrences in 0.05 s
embed-train: 966938 co-occurrence records (15.5 MB) shuffled in memory and written to g.emb.glove-records in 0.01 s; training reads them from memory
embed-train: training glove on the CPU: dim 32, x-max 10, alpha 0.75, adagrad per element, 15 epochs, lr 0.0005, 2 threads, seed 1; 966938 co-occurrence records in memory
embed-train: epoch 1/15: cost 0.0719, lr 0.0005, 966938 records in 0.0 s, 36.46M records/s (18.23M/s per thread)
embed-train: epoch 14/15: cost 0.0609, lr 0.0005, 966938 records in 0.0 s, 25.33M records/s (12.67M/s per thread)
embed-train: epoch 15/15: cost 0.0608, lr 0.0005, 966938 records in 0.0 s, 28.21M records/s (14.11M/s per thread)
embed-train: wrote g.emb (4554 words x 32 dims, f32, W + W̃)
"""
# The same with a budget that made counting spill sorted runs.
GLOVE_SPILLED_LINE = ("embed-train: counted 72540811 (word, context) pairs in 3.41 s (61.2% in a dense table of "
                      "2250000 cells, 7 sorted runs spilled to disk), merged them into 5032172 co-occurrences in 1.87 s\n")
# Refusals of a --memory budget: today's builds name the smallest as an option (whole MiB; the
# first is real, the second follows glove_setup.cpp's format string), older builds as sizes
# (the two after, in the wording glove.sh's parser was written for).
GLOVE_REFUSED_NOW = ("embed-train: error: --memory 4M is too small to count co-occurrences over 4554 words; give at "
                     "least --memory 5M\n")
GLOVE_REFUSED_TABLES_NOW = ("embed-train: error: --memory 16M is too small to train: the two tables of 71290 rows take "
                            "127.8 MB (and 2 threads reading records 2.1 MB); give at least --memory 124M, or shrink "
                            "the vocabulary with --min-count or --max-vocab\n")
GLOVE_REFUSED_COUNTING = ("embed-train: error: --memory 1.00 MB is too small to count co-occurrences over 17005207 "
                          "words; give at least --memory 9.1 MB\n")
GLOVE_REFUSED_TRAINING = ("embed-train: error: --memory 64M is too small to train: 5032172 co-occurrence records take "
                          "80.5 MB (and 80.5 MB while they are made) and the two tables of 71290 rows 27.7 MB\n")
# A skip-gram --metrics file: two epochs (a progress event between them is ignored).
SKIPGRAM_METRICS = """\
{"event":"start","unit":"words"}
{"event":"epoch","time":1.5,"epoch":1,"epochs":2,"unit":"words","done":1000000,"per_second":500000.0,"lr":0.0125,"loss":2.5,"peak_rss":104857600}
{"event":"progress","done":1500000}
{"event":"epoch","time":3.5,"epoch":2,"epochs":2,"unit":"words","done":2000000,"per_second":250000.0,"lr":2.5e-06,"loss":2.25,"peak_rss":109051904}
"""
# A GPU run's last epoch (big_table.sh reads the placement figures).
GPU_METRICS = ('{"event":"epoch","time":29.207,"epoch":1,"epochs":1,"unit":"words","done":18807197,'
               '"per_second":643926.9720173553,"lr":2.499999936844688e-06,"loss":1.4688240896144202,'
               '"peak_rss":1049473024,"resident_share":0.87654,"to_gpu_per_item":123.4,"from_gpu_per_item":61.6,'
               '"gpu_memory":2147483648}\n')
EVAL_JSON = {"restrict": 15223, "analogies": {"accuracy": 12.345, "correct": 1210, "answered": 9802,
                                              "questions": 19544},
             "word_pairs": {"spearman": 0.6321, "pairs": 353, "answered": 330}}
CLUSTER_QUALITY = """\
cluster_share_at_10 0.6523
head 0.8125 middle 0.6457 tail 0.4987
chance 0.000005
sample 300 rows 3997132 dim 300 seconds 1.234
"""
GPU_BANDWIDTH = "device_GBps 2901.3\nh2d_GBps 53.1\nd2h_GBps 54.8\n"
MPI_LOG = ("embed-train: epoch 1/1: 2150243 words in 10.2 s\n"
           "embed-train: 12 rounds between the ranks (0.31 s of sharing), 4.9 MB sent by this rank (4915200 bytes)\n"
           "embed-train: 25 rounds between the ranks (0.62 s of sharing), 9.8 MB sent by this rank (9830400 bytes)\n")
SKIPGRAM_LOG = ("embed-train: training skipgram on the CPU: dim 100, 2 threads\n"
                "embed-train: epoch 1/3: 1104259 words in 0.7 s, 1.58M words/s\n"
                "embed-train: epoch 2/3: 1104259 words in 0.7 s, 1.58M words/s\n")


class TempFiles(unittest.TestCase):
    """Writes inline excerpts to files, as the scripts pass paths."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def file(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


class Formatting(unittest.TestCase):
    def test_awk_number_prints_whole_numbers_whole_and_others_to_six_digits(self):
        self.assertEqual(bs.awk_number(12.0), "12")
        self.assertEqual(bs.awk_number(2.5), "2.5")
        self.assertEqual(bs.awk_number(1 / 3), "0.333333")
        self.assertEqual(bs.awk_number(12345678.5), "1.23457e+07")
        self.assertEqual(bs.awk_number(3e9), "3e+09")  # mawk: beyond an int, %.6g


class Lists(unittest.TestCase):
    def test_numbers_splits_words_and_rejects_what_is_not_a_number(self):
        self.assertEqual(bs.numbers(["1.5 2", "3"]), ["1.5", "2", "3"])
        self.assertEqual(bs.numbers([" "]), [])
        with self.assertRaises(bs.BenchError):
            bs.numbers(["1.5 x"])

    def test_median_of_an_odd_count_is_the_middle_value_as_written(self):
        self.assertEqual(bs.median(["7.50", "1.25", "3.00"]), "3.00")
        self.assertEqual(bs.median(["42"]), "42")

    def test_median_of_an_even_count_is_the_mean_of_the_middle_two(self):
        self.assertEqual(bs.median(["4", "1", "3", "2"]), "2.5")
        self.assertEqual(bs.median(["1.5", "2.5"]), "2")
        self.assertEqual(bs.median(["0.1", "0.2"]), "0.15")

    def test_median_sorts_numerically_not_as_text(self):
        self.assertEqual(bs.median(["9", "10", "100"]), "10")
        self.assertEqual(bs.median(["-0.5", "0.25", "-2"]), "-0.5")

    def test_statistics_of_nothing_are_a_dash(self):
        for f in (bs.median, bs.maximum, bs.mean, bs.total):
            self.assertEqual(f([]), "-")
        self.assertEqual(bs.mean_spread([], 2), "-")
        self.assertEqual(bs.mean_sd([], 2), "-")

    def test_maximum_is_the_largest_as_written(self):
        self.assertEqual(bs.maximum(["99", "100.0", "7"]), "100.0")

    def test_mean_and_sum(self):
        self.assertEqual(bs.mean(["1", "2", "4"]), "2.33333")
        self.assertEqual(bs.mean(["1", "3"]), "2")
        self.assertEqual(bs.total(["0.1", "1.7", "1.4"]), "3.2")

    def test_mean_spread_is_the_mean_and_half_the_range(self):
        self.assertEqual(bs.mean_spread(["1.234", "1.5"], 2), "1.37 ± 0.13")
        self.assertEqual(bs.mean_spread(["0.61"], 3), "0.610 ± 0.000")

    def test_mean_sd_is_the_mean_and_the_sample_standard_deviation(self):
        self.assertEqual(bs.mean_sd(["0.17", "0.19", "0.18"], 3), "0.180 +- 0.010")
        self.assertEqual(bs.mean_sd(["1.55"], 2), "1.55")  # one value: no spread

    def test_spread_needs_two_values(self):
        self.assertEqual(bs.spread(["0.652", "0.641", "0.660"]), "0.019")
        self.assertEqual(bs.spread(["0.652"]), "-")


class Comparisons(unittest.TestCase):
    def test_ratio(self):
        self.assertEqual(bs.ratio(3, 2), "1.50")
        self.assertEqual(bs.ratio(1, 3), "0.33")
        self.assertEqual(bs.ratio(3, 0), "inf")

    def test_signed_difference(self):
        self.assertEqual(bs.signed_difference(1.67, 1.55, 2), "+0.12")
        self.assertEqual(bs.signed_difference(0.177, 0.180, 3), "-0.003")

    def test_verdict_evaluates_comparisons_of_numbers(self):
        self.assertEqual(bs.verdict("0.93 >= 0.9"), "met")
        self.assertEqual(bs.verdict("0.89 >= 0.9"), "NOT met")
        self.assertEqual(bs.verdict("81234 * 1024 <= 134217728", "within", "OVER"), "within")
        self.assertEqual(bs.verdict("1.40 >= 1.55 - 0.13"), "NOT met")
        self.assertEqual(bs.verdict("-0.5 <= +0.12 <= 0.5"), "met")
        self.assertEqual(bs.verdict("-0.5 <= -0.61 <= 0.5"), "NOT met")
        self.assertEqual(bs.verdict("inf >= 0.8"), "met")  # ratio's figure for a run too fast to time
        self.assertEqual(bs.verdict("3 >= 1.8 * 2 or 1 < 2"), "met")

    def test_verdict_refuses_anything_but_arithmetic(self):
        for condition in ("__import__('os')", "x >= 1", "1 >=", "[1] == [1]", "- >= 0.9"):
            with self.assertRaises(bs.BenchError, msg=condition):
                bs.verdict(condition)

    def test_speed_verdict(self):
        self.assertEqual(bs.speed_verdict("3.40", 3, 1), "OK (target >= 3x)")
        self.assertEqual(bs.speed_verdict("inf", 40, 1), "OK (target >= 40x)")
        self.assertEqual(bs.speed_verdict("2.10", 3, 1), "BELOW TARGET (target >= 3x)")
        self.assertEqual(bs.speed_verdict("0.90", 3, 1), "FAIL (must be > 1x, target >= 3x)")

    def test_memory_verdict(self):
        self.assertEqual(bs.memory_verdict(500.0, 457.8, 1100.0), "OK: O(output)")
        self.assertEqual(bs.memory_verdict(900.0, 457.8, 1100.0), "HIGH: above 1.5x output")
        self.assertEqual(bs.memory_verdict(1200.0, 457.8, 1100.0), "BAD: at least the input text size")


class Units(unittest.TestCase):
    def test_memory_units(self):
        self.assertEqual(bs.mib(123456), "121")
        self.assertEqual(bs.mib(1000, 1), "1.0")
        self.assertEqual(bs.mib_of_bytes(80530636), "76.8")
        self.assertEqual(bs.mib_of_bytes(80530636, 0), "77")
        self.assertEqual(bs.gigabytes(2147483648), "2.15")

    def test_size_bytes_reads_cli11_sizes(self):
        self.assertEqual(bs.size_bytes("128M"), 128 << 20)
        self.assertEqual(bs.size_bytes("4G"), 4 << 30)
        self.assertEqual(bs.size_bytes("24m"), 24 << 20)
        self.assertEqual(bs.size_bytes("1.5GiB"), 3 << 29)
        self.assertEqual(bs.size_bytes("512kB"), 512 << 10)
        self.assertEqual(bs.size_bytes("1000"), 1000)
        with self.assertRaises(bs.BenchError):
            bs.size_bytes("lots")

    def test_rate(self):
        self.assertEqual(bs.rate(17005207, 9.87), "1722919")
        self.assertEqual(bs.rate(17005207, 9.87, 1000, suffix="k"), "1723k")
        self.assertEqual(bs.rate(1e9, 120.4, 1e6, ".3f", "M"), "8.306M")
        self.assertEqual(bs.rate(1e8, 12.3, spec=".4g"), "8.13e+06")
        self.assertEqual(bs.rate(5, 0), "inf")

    def test_scaled_and_elapsed(self):
        self.assertEqual(bs.scaled(12345678, divide_by=1e6, spec=".3f", suffix="M"), "12.346M")
        self.assertEqual(bs.scaled(0.8766, times=100, spec=".1f", suffix="%"), "87.7%")
        self.assertEqual(bs.elapsed(1764144000.25, 1764144012.5), "12.2")
        self.assertEqual(bs.elapsed(1764144000.25, 1764144000.2625, 1, "ms"), "12.5")


class Metrics(TempFiles):
    def test_epoch_figures_sum_each_epochs_seconds(self):
        figures = bs.epoch_figures(self.file("m.jsonl", SKIPGRAM_METRICS))
        # 1e6 words at 5e5/s, then 1e6 more at 2.5e5/s: 2 + 4 seconds.
        self.assertEqual(figures["epochs_run"], 2)
        self.assertEqual(figures["unit"], "words")
        self.assertEqual(figures["units"], 2000000)
        self.assertAlmostEqual(figures["train_s"], 6.0)
        self.assertAlmostEqual(figures["rate"], 2e6 / 6)
        self.assertEqual(figures["last_rate"], 250000.0)
        self.assertEqual(figures["loss"], 2.25)
        self.assertEqual(bs.assignments(figures),
                         "epochs_run=2 unit=words units=2000000 train_s=6.0 rate=333333.3333333333 "
                         "last_rate=250000.0 loss=2.25")

    def test_a_diverged_runs_null_loss_is_nan(self):
        text = SKIPGRAM_METRICS.replace('"loss":2.25', '"loss":null')
        self.assertTrue(math.isnan(bs.epoch_figures(self.file("m.jsonl", text))["loss"]))

    def test_metrics_without_an_epoch_are_an_error(self):
        path = self.file("m.jsonl", '{"event":"start","unit":"words"}\n')
        with self.assertRaisesRegex(bs.BenchError, "no epoch events"):
            bs.epoch_figures(path)
        with self.assertRaises(bs.BenchError):
            bs.last_epoch_figures(path)

    def test_last_epoch_figures(self):
        figures = bs.last_epoch_figures(self.file("m.jsonl", GPU_METRICS))
        self.assertEqual(bs.assignments(figures),
                         "wps=6.439e+05 loss=1.4688 rss=1049473024 resident=0.8765 h2d=123 d2h=62 gpu_mem=2147483648 "
                         "wait=- copy=- kernel=- batch_ms=-")
        timed = bs.last_epoch_figures(self.file(
            "t.jsonl", GPU_METRICS.replace('"gpu_memory"', '"gpu_wait_share":0.416,"row_copy_share":0.05,"gpu_memory"')))
        self.assertEqual((timed["wait"], timed["copy"]), ("42", "5"))
        batches = bs.last_epoch_figures(self.file(
            "b.jsonl", GPU_METRICS.replace('"gpu_memory"', '"kernel_share":0.634,"batch_in_s":0.00021,"batch_queued_s":0.0014,'
                                           '"batch_kernel_s":0.000356,"batch_out_s":0.00018,"gpu_memory"')))
        self.assertEqual((batches["kernel"], batches["batch_ms"]), ("63", "0.21/1.40/0.36/0.18"))
        cpu = bs.last_epoch_figures(self.file("c.jsonl", SKIPGRAM_METRICS))
        self.assertEqual((cpu["resident"], cpu["h2d"], cpu["gpu_mem"], cpu["wait"], cpu["kernel"], cpu["batch_ms"]),
                         ("0.0000", "0", 0, "0", "0", "0"))

    def test_largest_cost_difference(self):
        memory = self.file("a.jsonl", SKIPGRAM_METRICS)
        disk = self.file("b.jsonl", SKIPGRAM_METRICS.replace('"loss":2.25', '"loss":2.3'))
        self.assertEqual(bs.largest_cost_difference([(memory, memory)]), "0.00")
        self.assertEqual(bs.largest_cost_difference([(memory, memory), (memory, disk)]), "2.22")
        shorter = self.file("c.jsonl", SKIPGRAM_METRICS.splitlines(keepends=True)[1])
        with self.assertRaisesRegex(bs.BenchError, "has 2 epochs, .* 1"):
            bs.largest_cost_difference([(memory, shorter)])


class Logs(TempFiles):
    def test_eval_figures(self):
        path = self.file("e.json", json.dumps(EVAL_JSON))
        self.assertEqual(bs.eval_figures(path), [12.345, 1210, 9802, 19544, 0.6321, 15223])
        none_answered = dict(EVAL_JSON, analogies=dict(EVAL_JSON["analogies"], accuracy=None, answered=0))
        self.assertEqual(bs.eval_figures(self.file("n.json", json.dumps(none_answered)))[0], 0)

    def test_spearman_ranks_ties_as_scipy(self):
        # scipy.stats.spearmanr([1, 2, 2, 3], [10, 20, 30, 40]) = 0.9486832980505139
        self.assertAlmostEqual(bs.spearman([1, 2, 2, 3], [10, 20, 30, 40]), 0.9486832980505139, places=12)
        self.assertAlmostEqual(bs.spearman([1, 2, 3], [3, 2, 1]), -1.0, places=12)
        with self.assertRaises(bs.BenchError):
            bs.spearman([1, 1, 1], [1, 2, 3])

    def test_pairs_spearman_matches_pairs_and_needs_every_one(self):
        gold = self.file("g.tsv", "# header\nlove\tsex\t6.77\ntiger\tcat\t7.35\nbook\tpaper\t7.46\n")
        answers = self.file("a.tsv", "tiger\tcat\t0.5\nlove\tsex\t0.2\nbook\tpaper\t0.9\n")
        self.assertEqual(bs.pairs_spearman(gold, answers), "1.0000 3")
        with self.assertRaises(bs.BenchError):
            bs.pairs_spearman(gold, self.file("b.tsv", "tiger\tcat\t0.5\n"))

    def test_fasttext_rate_takes_the_last_progress_line(self):
        log = self.file("f.log", "Read 1M words\rProgress:  50.0% words/sec/thread:   70000 lr: 0.02\r"
                                 "Progress: 100.0% words/sec/thread:   77324 lr:  0.000000 avg.loss:  2.62\n")
        self.assertEqual(bs.fasttext_rate(log, 2), "154648")
        with self.assertRaises(bs.BenchError):
            bs.fasttext_rate(self.file("e.log", "Read 1M words\n"), 2)

    def test_glove_count_figures(self):
        self.assertEqual(bs.glove_count_figures(self.file("g.log", GLOVE_LOG)),
                         {"pairs": "3551890", "count_s": "0.02", "merge_s": "0.05", "spilled": "0", "coocs": "966938"})
        spilled = bs.glove_count_figures(self.file("s.log", GLOVE_SPILLED_LINE))
        self.assertEqual((spilled["spilled"], spilled["coocs"], spilled["count_s"]), ("7", "5032172", "3.41"))

    def test_a_log_without_the_counting_line_is_an_error(self):
        with self.assertRaisesRegex(bs.BenchError, "no 'counted ... merged them into' line"):
            bs.glove_count_figures(self.file("r.log", GLOVE_REFUSED_TRAINING))

    def test_glove_run_figures(self):
        metrics = self.file("m.jsonl", SKIPGRAM_METRICS.replace('"words"', '"records"'))
        figures = bs.glove_run_figures(self.file("g.log", GLOVE_LOG), metrics, wall_s=7.5)
        self.assertEqual(bs.assignments(figures),
                         "pairs=3551890 count_s=0.02 merge_s=0.05 spilled=0 coocs=966938 epochs_run=2 "
                         "train_s=6.00 per_epoch_s=3.000 mrec_s=0.33 cost=2.2500 other_s=1.43")
        self.assertNotIn("other_s", bs.glove_run_figures(self.file("g2.log", GLOVE_LOG), metrics))

    def test_glove_min_memory_reads_the_option_todays_builds_name(self):
        self.assertEqual(bs.glove_min_memory(self.file("n.log", GLOVE_REFUSED_NOW)), "5M")
        self.assertEqual(bs.glove_min_memory(self.file("t.log", GLOVE_REFUSED_TABLES_NOW)), "124M")

    def test_glove_min_memory_takes_the_largest_size_each_figure_rounds_from(self):
        # 9.1 MB: at most 9.15e6 bytes, 8.73 MiB: 9M.
        self.assertEqual(bs.glove_min_memory(self.file("c.log", GLOVE_REFUSED_COUNTING)), "9M")
        # 80.55 + 80.55 + 27.75 MB = 188.85e6 bytes = 180.1 MiB: 181M.
        self.assertEqual(bs.glove_min_memory(self.file("t.log", GLOVE_REFUSED_TRAINING)), "181M")
        self.assertEqual(bs.glove_min_memory(self.file("g.log", GLOVE_LOG)), "")

    def test_glove_table_sizes(self):
        self.assertEqual(bs.glove_table_sizes(self.file("g.log", GLOVE_LOG)), {"rows": "4554", "records": "966938"})
        with self.assertRaisesRegex(bs.BenchError, "wrote"):
            bs.glove_table_sizes(self.file("c.log", GLOVE_REFUSED_COUNTING))

    def test_glove_last_cost(self):
        self.assertEqual(bs.glove_last_cost(self.file("g.log", GLOVE_LOG)), "0.0608")
        with self.assertRaisesRegex(bs.BenchError, "no 'cost'"):
            bs.glove_last_cost(self.file("c.log", GLOVE_REFUSED_COUNTING))

    def test_epoch_items(self):
        self.assertEqual(bs.epoch_items(self.file("s.log", SKIPGRAM_LOG)), "1104259")
        self.assertEqual(bs.epoch_items(self.file("g.log", GLOVE_LOG)), "966938")
        with self.assertRaisesRegex(bs.BenchError, "no epoch line"):
            bs.epoch_items(self.file("c.log", GLOVE_REFUSED_COUNTING))

    def test_mpi_sent_bytes_is_the_last_line_or_0_for_one_process(self):
        self.assertEqual(bs.mpi_sent_bytes(self.file("m.log", MPI_LOG)), "9830400")
        self.assertEqual(bs.mpi_sent_bytes(self.file("s.log", SKIPGRAM_LOG)), "0")

    def test_a_missing_log_is_an_error(self):
        with self.assertRaises(OSError):
            bs.glove_last_cost(os.path.join(self.dir.name, "absent.log"))


class HelperOutputs(unittest.TestCase):
    def test_cluster_quality(self):
        self.assertEqual(bs.cluster_quality(CLUSTER_QUALITY), {"share": "0.6523", "thirds": "0.812/0.646/0.499"})
        with self.assertRaisesRegex(bs.BenchError, "cluster_share_at_10"):
            bs.cluster_quality("bench-cluster-quality: error: no such file\n")

    def test_gpu_bandwidths(self):
        self.assertEqual(bs.gpu_bandwidths(GPU_BANDWIDTH), ["2901.3", "53.1", "54.8"])
        with self.assertRaises(bs.BenchError):
            bs.gpu_bandwidths("device_GBps 2901.3\n")

    def test_ann_index_share(self):
        line = "index    hnsw, M 16, 1000000 nodes, 152.6 MB, 12% of the vectors"
        self.assertEqual(bs.ann_index_share(line), "12")
        with self.assertRaises(bs.BenchError):
            bs.ann_index_share("index    none")


class Formulas(TempFiles):
    def test_subsample_keep(self):
        # A word seen 1000 times in 1000 words at 1e-4: t = 0.1, keep = (sqrt(1e4) + 1) * 1e-4.
        self.assertAlmostEqual(bs.subsample_keep(self.file("d.txt", "a " * 1000)), 101e-4)
        # Beside it, a word seen 4 times (below min-count: not counted) and one seen 9 times:
        # t = 1e-4 x 1009, each word keeps c x (sqrt(c / t) + 1) x t / c of its c.
        corpus = self.file("c.txt", "a " * 1000 + "rare " * 4 + "b\n" * 9)
        t = 0.1009
        kept = (math.sqrt(1000 / t) + 1) * t + (math.sqrt(9 / t) + 1) * t
        self.assertAlmostEqual(bs.subsample_keep(corpus), kept / 1009)
        # min(1, ...): words rarer than t are kept whole.
        self.assertAlmostEqual(bs.subsample_keep(corpus, sample=10), 1.0)
        with self.assertRaisesRegex(bs.BenchError, "no word occurs 5 times"):
            bs.subsample_keep(self.file("e.txt", "a b c"))

    def test_rooflines(self):
        # 3000 GB/s over keep 0.5 x 12 rows x 2 x 100 x 4 bytes (4800 bytes a word).
        self.assertEqual(bs.skipgram_roofline(100, 0.5, 3000), "6.25e+08")
        # min(3000e9 / 3232, 50e9 / 16) = min(9.28e8, 3.125e9).
        self.assertEqual(bs.glove_roofline(100, 3000, 50), "9.28e+08")
        self.assertEqual(bs.glove_roofline(100, 3000, 5), "3.12e+08")

    def test_cluster_chance(self):
        self.assertEqual(bs.cluster_chance(50, 100), "0.49")


class AnnSummary(TempFiles):
    def test_summary_at_matched_recall(self):
        ours = self.file("ours.jsonl", "\n".join(json.dumps(r) for r in [
            {"kind": "exact", "qps_one_at_a_time": 100.0, "qps_batch": 900.0},
            {"kind": "ann", "ef": 16, "recall": 0.90, "qps_one_thread": 5000.0, "qps_threads": 9000.0},
            {"kind": "ann", "ef": 32, "recall": 0.96, "qps_one_thread": 3000.0, "qps_threads": 5000.0}]) + "\n")
        peers = self.file("peers.jsonl", json.dumps(
            {"kind": "faiss", "ef": 24, "recall": 0.95, "qps_one_thread": 3600.0, "qps_threads": 6000.0}) + "\n")
        lines = bs.ann_summary(ours, peers, 12, 8.04)
        self.assertEqual(lines[2], "embed        32  0.9600        3000.0     5000.0")
        self.assertEqual(lines[4], "hnswlib    (no ef reached recall 0.95, or skipped)")
        self.assertIn("target: one at a time >= 20x exact: 30.0x met", lines)
        self.assertIn("target: within 1.5x of the best peer at matched recall: best peer / ours = 1.20 met", lines)
        self.assertEqual(lines[-1], "target: first answer <= 30 ms: 8.0 ms met")

    def test_no_exact_line_is_an_error(self):
        empty = self.file("e.jsonl", "")
        with self.assertRaisesRegex(bs.BenchError, "no exact-search line"):
            bs.ann_summary(empty, empty, 12, 8)


class Running(TempFiles):
    def test_measured_run_writes_wall_and_peak_and_returns_the_status(self):
        time_file = os.path.join(self.dir.name, "t.time")
        status = bs.measured_run(time_file, [sys.executable, "-c", "import sys; sys.exit(3)"])
        self.assertEqual(status, 3)
        with open(time_file, encoding="utf-8") as f:
            wall, kib = f.read().split()
        self.assertGreater(float(wall), 0)
        self.assertGreater(int(kib), 0)

    def test_stamp_lines(self):
        out = []
        ticks = iter([100.5, 112.25])
        bs.stamp_lines(["counting\n", "epoch 1\n"], "host/4", 100.0, out.append, clock=lambda: next(ticks))
        self.assertEqual(out, ["      0.5 s [host/4] counting\n", "     12.2 s [host/4] epoch 1\n"])


class CommandLine(TempFiles):
    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = bs.main(list(argv))
        return status, out.getvalue(), err.getvalue()

    def test_lists_take_one_argument_or_several(self):
        self.assertEqual(self.run_cli("median", "--", "3 1 2"), (0, "2\n", ""))
        self.assertEqual(self.run_cli("median", "1", "2"), (0, "1.5\n", ""))
        self.assertEqual(self.run_cli("median", "--", ""), (0, "-\n", ""))
        self.assertEqual(self.run_cli("mean-spread", "2", "--", "-0.5 0.5"), (0, "0.00 ± 0.50\n", ""))

    def test_figures_print_shell_assignments(self):
        status, out, _ = self.run_cli("glove-count", self.file("g.log", GLOVE_LOG))
        self.assertEqual((status, out), (0, "pairs=3551890 count_s=0.02 merge_s=0.05 spilled=0 coocs=966938\n"))
        status, out, _ = self.run_cli("eval", self.file("e.json", json.dumps(EVAL_JSON)))
        self.assertEqual(out, "12.345 1210 9802 19544 0.6321 15223\n")

    def test_a_missing_line_fails_with_the_reason(self):
        status, out, err = self.run_cli("glove-last-cost", self.file("c.log", GLOVE_REFUSED_COUNTING))
        self.assertEqual((status, out), (1, ""))
        self.assertIn("benchstats.py glove-last-cost:", err)
        self.assertIn("no 'cost'", err)
        status, out, err = self.run_cli("epoch-figures", os.path.join(self.dir.name, "absent.jsonl"))
        self.assertEqual((status, out), (1, ""))
        self.assertIn("No such file", err)

    def test_a_bad_number_fails(self):
        status, out, err = self.run_cli("median", "--", "1 oops")
        self.assertEqual((status, out), (1, ""))
        self.assertIn("not a number: 'oops'", err)

    def test_verdict_rate_and_units(self):
        self.assertEqual(self.run_cli("verdict", "--", "-0.5 <= -0.02 <= 0.5")[1], "met\n")
        self.assertEqual(self.run_cli("verdict", "--", "2 * 1024 <= 1024", "within", "OVER")[1], "OVER\n")
        self.assertEqual(self.run_cli("rate", "1000", "8", "--divide-by", "1e3", "--format", ".3f", "--suffix", "k")[1],
                         "0.125k\n")
        self.assertEqual(self.run_cli("diff", "--", "-0.25", "0.5", "2")[1], "-0.75\n")
        self.assertEqual(self.run_cli("size-bytes", "4G")[1], f"{4 << 30}\n")

    def test_cluster_quality_reads_standard_input(self):
        old_stdin = sys.stdin
        sys.stdin = io.StringIO(CLUSTER_QUALITY)
        try:
            self.assertEqual(self.run_cli("cluster-quality", "-")[1], "share=0.6523 thirds=0.812/0.646/0.499\n")
        finally:
            sys.stdin = old_stdin


if __name__ == "__main__":
    unittest.main()
