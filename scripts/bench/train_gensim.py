# train_gensim.py: trains gensim's Word2Vec (negative sampling) for scripts/bench/train.sh.
#
# Usage: /usr/bin/python3 train_gensim.py CORPUS OUTPUT.bin --model skipgram|cbow
#            [--dim 100 --window 5 --negative 5 --min-count 5 --sample 1e-4 --lr 0.025
#             --epochs 5 --threads 2 --seed 1]
#
# Reads CORPUS with corpus_file= (gensim's fastest multi-core path), decays the learning rate
# linearly from LR to LR * 1e-4 (word2vec C's floor), writes a word2vec binary, and prints one
# line with its own timings. The benchmark times the whole process; these figures only show how
# the time splits (import, training, writing). Needs gensim (Debian: python3-gensim, only
# importable by /usr/bin/python3 here).
#
# Note on the schedule: with corpus_file, gensim 4.2 decays each worker's learning rate by that
# worker's own words over the whole corpus's (word2vec_corpusfile.pyx, get_next_alpha), so with W
# workers each epoch covers only 1/W of its span of the decay, the rate jumps back up at the next
# epoch and the run ends at LR*(W-1)/(W*EPOCHS) instead of the floor. embed-train, word2vec.c and
# gensim's iterable path decay over all workers' words. At 2 workers this higher mean rate accounts
# for most of gensim's analogy lead on text8-head (bench/RESULTS.md, issue 23).
import argparse
import sys
import time

t_start = time.perf_counter()
from gensim.models import Word2Vec  # noqa: E402  (import time is part of what we report)
from gensim.models.word2vec import LineSentence  # noqa: E402

t_imported = time.perf_counter()


def main():
    p = argparse.ArgumentParser(description="gensim Word2Vec for scripts/bench/train.sh")
    p.add_argument("corpus")
    p.add_argument("output")
    p.add_argument("--model", choices=["skipgram", "cbow"], default="skipgram")
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--window", type=int, default=5)
    p.add_argument("--negative", type=int, default=5)
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--sample", type=float, default=1e-4)
    p.add_argument("--lr", type=float, default=0.025)
    p.add_argument("--min-lr", type=float, help="the rate it decays to (default: lr x 1e-4; gensim's own: 0.0001)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--reader", choices=["file", "lines"], default="file",
                   help="file: corpus_file= (fast; its per-worker schedule, see above); "
                        "lines: a LineSentence iterable, whose schedule decays over all workers' words")
    a = p.parse_args()

    t0 = time.perf_counter()
    source = {"corpus_file": a.corpus} if a.reader == "file" else {"sentences": LineSentence(a.corpus)}
    model = Word2Vec(
        **source,
        sg=1 if a.model == "skipgram" else 0,
        vector_size=a.dim,
        window=a.window,
        negative=a.negative,
        hs=0,
        min_count=a.min_count,
        sample=a.sample,
        alpha=a.lr,
        min_alpha=a.min_lr if a.min_lr is not None else a.lr * 1e-4,
        epochs=a.epochs,
        workers=a.threads,
        seed=a.seed,
    )
    t1 = time.perf_counter()
    model.wv.save_word2vec_format(a.output, binary=True)
    t2 = time.perf_counter()
    print(
        f"gensim: vocab {len(model.wv)}, corpus {model.corpus_total_words} words; "
        f"import {t_imported - t_start:.2f} s, build vocab + train {t1 - t0:.2f} s, "
        f"write {t2 - t1:.2f} s",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
