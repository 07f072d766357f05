# Sourced by the GPU CLI tests (after tests/cli/lib.sh): whether a GPU run's vectors score
# as a reference run's on the WordSim-353 sample. Needs $EQ (embed-query) and $DATA (the
# fixtures). The loss alone cannot tell a GPU run from a worse one on the bundled text8 slice:
# the CPU's epochs 2 to 5 end at 2.57 to 2.61, all within its 3% band. The vectors' quality
# can: on the CPU (2 cores, 2026-11-26) gpu_train_cli_test.sh's settings score 0.307, 0.339,
# 0.336 on seeds 3-5 (spread 0.032); one epoch scores 0.129 and --dim 2 0.036. So a run must
# be within 0.08 of its reference.

# sample_spearman FILE.emb: its WordSim-353 sample's Spearman (embed-query eval).
sample_spearman() {
  "$EQ" eval "$1" --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" --format json -q |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["word_pairs"]["spearman"])'
}

# spearman_near NAME FILE.emb REFERENCE WHOSE [ALLOWED]: FILE's sample Spearman within
# ALLOWED (default 0.08) of REFERENCE, the Spearman of WHOSE run ("the CPU's").
spearman_near() {
  local got allowed=${5:-0.08}
  got=$(sample_spearman "$2")
  python3 -c "import sys; a, b, d = map(float, sys.argv[1:]); sys.exit(abs(a - b) > d)" "$got" "$3" "$allowed" && ok ||
    bad "$1: WS-353 sample Spearman $got, $4 $3 (allowed: within $allowed)"
}

# spearman_no_worse NAME FILE.emb REFERENCE WHOSE ALLOWED: FILE's sample Spearman at most
# ALLOWED below REFERENCE (above it by any amount).
spearman_no_worse() {
  local got
  got=$(sample_spearman "$2")
  python3 -c "import sys; a, b, d = map(float, sys.argv[1:]); sys.exit(a < b - d)" "$got" "$3" "$5" && ok ||
    bad "$1: WS-353 sample Spearman $got, $4 $3 (allowed: at most $5 below)"
}
