// Hostile files (issue 18): every size, count and setting a file declares is checked
// before it is trusted. One case per problem the first fuzzing campaign found, each
// refused with one line naming the file and what is wrong, never "out of memory" or a
// library exception's text.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/atomic_output.h"
#include "core/excerpt.h"
#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "query/line_reader.h"
#include "search/vector_space.h"
#include "test_util.h"
#include "text/text_reader.h"
#include "text/word2vec_binary.h"
#include "train/corpus/corpus_reader.h"
#include "train/corpus/corpus_shards.h"
#include "train/files/checkpoint.h"
#include "train/glove/cooc_file.h"
#include "train/glove/glove_layout.h"
#include "train/word2vec/word2vec_trainer.h"
#include "train_fixtures.h"

using namespace embed;
using embed::test::TempDir;

namespace {

// A small, real skip-gram or GloVe run to save as a checkpoint, with `change` applied
// to its settings after the tables were made from the honest ones.
void save_hostile_checkpoint(const std::string& path, Model model, const std::function<void(TrainingRun&)>& change) {
  TrainingRun run;
  run.settings.model = model;
  run.settings.dim = 4;
  run.settings.threads = 1;
  run.output.output = "out.emb";
  const std::string corpus = path + ".corpus.txt";  // stays for the loader to check
  test::write_file(corpus, "a b c a b c a b\n");
  run.corpus = read_corpus({corpus}, CorpusOptions{1, 0, 100, ""});
  const std::size_t width = model == Model::glove ? GloveLayout(4, Optimizer::adagrad).width : 4;
  if (model == Model::glove) run.settings.optimizer = Optimizer::adagrad;
  run.input = RowMatrix(run.corpus.vocab.size(), width);
  run.output_table = RowMatrix(run.corpus.vocab.size(), width);
  run.state = model == Model::glove ? TrainState::start(1, 1, 1) : Word2vecTrainer::start_state(run.corpus, 1, 1);
  change(run);
  save_checkpoint(path, run);
}

std::string gzip_text(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  return path;
}

EmbeddingTable read_vectors(const std::string& path, bool header, unsigned threads = 1) {
  InputStream in = InputStream::open(path);
  TextReadOptions options;
  options.has_header = header;
  options.threads = threads;
  return read_text_vectors(in, options);
}

}  // namespace

TEST_CASE("a checkpoint's settings are held to the command line's ranges before anything is allocated", "[hostile]") {
  TempDir dir;
  const std::string path = dir.file("c.ckpt");
  // GloVe with dim 2^64 - 1: the row width used to wrap to 0 and the trainer overflowed the heap.
  save_hostile_checkpoint(path, Model::glove, [](TrainingRun& r) { r.settings.dim = std::numeric_limits<std::size_t>::max(); });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "c.ckpt: checkpoint dim 18446744073709551615 is out of range 1..10000");
  // Skip-gram with dim near 2^62: std::length_error escaped as "vector::_M_default_append".
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.settings.dim = std::size_t{1} << 62; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint dim 4611686018427387904 is out of range 1..10000");
  // dim 2^30: 32 GB allocated and zero-filled before any size check.
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.settings.dim = std::size_t{1} << 30; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint dim 1073741824 is out of range 1..10000");
  // A dim within range that the tables do not have: refused by the tensor sizes, not allocated.
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.settings.dim = 9000; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint tensor \"input\" has the wrong type or size");
  // window 10^12: 128 TB asked for.
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.settings.window = 1000000000000; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint window 1000000000000 is out of range 1..100");
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.settings.threads = 100000; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint threads 100000 is out of range 1..1024");
  save_hostile_checkpoint(path, Model::glove, [](TrainingRun& r) { r.settings.x_max = -1; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint x_max -1 is out of range");
  // sample above 1 with zero counts: a float-cast overflow in the sampling thresholds.
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.settings.sample = 5; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint sample 5 is out of range 0..1");
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.corpus.vocab.counts[1] = 0; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "c.ckpt: the checkpoint's count of word 1 is 0");
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun& r) { r.corpus.max_token_bytes = std::size_t{1} << 40; });
  REQUIRE_ERROR_CONTAINS(load_checkpoint(path), "checkpoint corpus_max_token_bytes 1099511627776 is out of range");
  // The honest one loads.
  save_hostile_checkpoint(path, Model::skipgram, [](TrainingRun&) {});
  CHECK(load_checkpoint(path).settings.dim == 4);
}

TEST_CASE("a text vector file's header is not trusted beyond the bytes that follow it", "[hostile]") {
  TempDir dir;
  // 12 bytes declaring dimension 3e9: the reader reserved 24 GB.
  test::write_file(dir.file("h.txt"), "2 3000000000");
  REQUIRE_ERROR_CONTAINS(read_vectors(dir.file("h.txt"), true),
                         "h.txt:1: the header gives dimension 3000000000, which is not plausible");
  // Through gzip the header's row count was trusted up to 2^28 rows: "out of memory".
  gzip_text(dir.file("h.txt.gz"), "268435456 300\na" + std::string(300 * 2, ' ') + "\n");
  REQUIRE_ERROR_CONTAINS(read_vectors(dir.file("h.txt.gz"), true), "h.txt.gz:2:");
  gzip_text(dir.file("r.txt.gz"), "268435456 2\na 1 2\n");
  REQUIRE_ERROR_CONTAINS(read_vectors(dir.file("r.txt.gz"), true), "the header says 268435456 words but the file has 1 row");
  // A file the size of its header, promising the largest plausible rows, is refused, not reserved for.
  test::write_file(dir.file("big.txt"), "1000000 16777216\n");
  REQUIRE_ERROR_CONTAINS(read_vectors(dir.file("big.txt"), true), "the header says 1000000 words but the file has 0 rows");
}

TEST_CASE("word2vec binary: a header's dimension beyond any real vectors is refused", "[hostile]") {
  TempDir dir;
  test::write_file(dir.file("b.bin"), "2 30000000\n");
  InputStream in = InputStream::open(dir.file("b.bin"));
  REQUIRE_ERROR_CONTAINS(read_word2vec_binary(in, 0, nullptr),
                         "b.bin:1: the header gives dimension 30000000, which is not plausible");
}

TEST_CASE("rows followed by blank lines parse in parallel without copying from an empty part", "[hostile]") {
  // UBSan: memcpy from a null pointer (size 0) when a part of the file held only blank lines.
  TempDir dir;
  std::string text = "a 1 2\n";
  text += std::string(4096, '\n');
  test::write_file(dir.file("blank.txt"), text);
  InputStream in = InputStream::open(dir.file("blank.txt"));
  TextReadOptions options;
  options.threads = 2;
  options.chunk_bytes = 64;
  const EmbeddingTable table = read_text_vectors(in, options);
  CHECK(table.rows() == 1);
}

TEST_CASE("a co-occurrence file's window is held to the command line's range", "[hostile]") {
  TempDir dir;
  CoocMatrix m;
  m.vocab.words = {"a", "b"};
  m.vocab.counts = {2, 1};
  m.window = 1000;
  m.entries = {{0, 1, 1.0f}};
  {
    AtomicOutput out(dir.file("w.cooc"));
    save_cooc(out, m);
  }
  REQUIRE_ERROR_CONTAINS(load_cooc(dir.file("w.cooc")), "w.cooc: co-occurrence file window 1000 is out of range 1..100");
}

TEST_CASE("norms computed at open for one wide row take a block of that row, not of 4096", "[hostile]") {
  // 800 KB: one row of 400,000 f16 values and no norms tensor; the scratch block was
  // sized 4096 x dim (6.5 GB).
  TempDir dir;
  EmbeddingTable table;
  table.dim = 400000;
  const std::vector<float> row(400000, 0.5f);
  table.add_row("wide", row, 1);
  {
    AtomicOutput out(dir.file("wide.emb"));
    EmbWriteOptions options;
    options.dtype = DType::f16;
    write_emb(table, options, out);
    out.commit();
  }
  std::string bytes = test::read_file(dir.file("wide.emb"));
  const std::size_t at = bytes.find("\"norms\"");
  REQUIRE(at != std::string::npos);
  bytes[at + 5] = 'z';  // "normz": readers ignore it
  test::write_file(dir.file("foreign.emb"), bytes);
  const VectorSpace space = VectorSpace::from_emb(EmbFile::open(dir.file("foreign.emb")));
  REQUIRE(space.norms().size() == 1);
  CHECK(space.norms()[0] == Approx(0.5 * std::sqrt(400000.0)).epsilon(1e-5));
}

// What embed-train and embed-query read from their user (issue 18's last item): no input
// makes them hold more than a small multiple of it, or a message quote all of it.

TEST_CASE("a corpus token of megabytes is cut like any long token, counted and read alike", "[hostile]") {
  // Before: the counting tokenizer and CorpusReader both held the whole token in memory.
  TempDir dir;
  const std::string huge = "abcd" + std::string(3 << 20, 'x');  // longer than a 1 MB read block
  test::write_file(dir.file("c.txt"), "ok " + huge + " abcd\nok " + huge + "\n\nabcdef ok");
  CorpusOptions options;
  options.min_count = 1;
  options.max_token_bytes = 4;
  const Corpus corpus = read_corpus({dir.file("c.txt")}, options);
  REQUIRE(corpus.vocab.words == std::vector<std::string>{"abcd", "ok"});
  CHECK(corpus.vocab.counts == std::vector<std::int64_t>{4, 3});
  CHECK(corpus.truncated_tokens == 3);
  const RowLookup lookup(corpus.vocab);
  for (unsigned shards = 1; shards <= 3; ++shards) {
    std::vector<std::uint32_t> all, rows;
    for (const ByteRange& range : token_aligned_ranges(corpus.files, shards)) {
      CorpusReader reader(corpus.files, range, lookup, corpus.max_token_bytes);
      while (reader.next_sentence(100, rows)) all.insert(all.end(), rows.begin(), rows.end());
      CHECK(reader.position() == range.end);
    }
    CHECK(all == std::vector<std::uint32_t>{1, 0, 0, 1, 0, 0, 1});
  }
}

TEST_CASE("a query line longer than 1 MiB is refused, and read once, not rescanned", "[hostile]") {
  TempDir dir;
  test::write_file(dir.file("q.txt"), "paris\n" + std::string(kMaxQueryLineBytes + 1, 'x') + "\nrome\n");
  const int fd = ::open(dir.file("q.txt").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  LineReader reader(fd);
  // The batch before the long line is answered; the next call reports it.
  CHECK(reader.next_batch(100) == std::vector<std::string>{"paris"});
  REQUIRE_ERROR_CONTAINS(reader.next_batch(100), "<stdin>:2: a line longer than 1048576 bytes");
  ::close(fd);
  std::string line;
  // A line of exactly the limit is a line.
  test::write_file(dir.file("ok.txt"), std::string(kMaxQueryLineBytes, 'y'));
  const int ok = ::open(dir.file("ok.txt").c_str(), O_RDONLY);
  LineReader whole(ok);
  REQUIRE(whole.next_line(line));
  CHECK(line.size() == kMaxQueryLineBytes);
  ::close(ok);
}

TEST_CASE("messages quote at most 40 bytes of a file's or a user's text, escaped", "[hostile]") {
  CHECK(excerpt("paris") == "paris");
  CHECK(excerpt(std::string(1000, 'x')) == std::string(40, 'x') + "...");
  CHECK(excerpt("a\tb\x01") == "a\\x09b\\x01");
  CHECK(excerpt("\xBA\x16O/") == "\\xBA\\x16O/");                                      // not UTF-8: every high byte escaped
  CHECK(excerpt(std::string(39, 'e') + "\xC3\xA9z") == std::string(39, 'e') + "...");  // never half a character
  CHECK(excerpt("caf\xC3\xA9") == "caf\xC3\xA9");
  TempDir dir;
  test::write_file(dir.file("v.txt"), std::string(5000, '\x01') + "\n");
  REQUIRE_ERROR_CONTAINS(
      read_vectors(dir.file("v.txt"), false), "found one field \"" + [] {
        std::string s;
        for (int i = 0; i < 40; ++i) s += "\\x01";
        return s;
      }() + "...\"");
}
