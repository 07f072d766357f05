// bench-gen-clusters: a synthetic corpus with a planted quality signal, at any vocabulary
// size, fast enough to make billions of tokens for the trainer's benchmarks. Every line is
// drawn from one cluster of words (cluster_tokens.h), so a model that learns anything puts
// a word's nearest neighbours in its own cluster; bench-cluster-quality measures that.
//
//   bench-gen-clusters --vocab V --cluster-size S --words N --out FILE|- [--seed 1]
//                      [--threads T] [--noise 0.05] [--line-words 20] [--zipf 1.0]
//
// A line's cluster follows a Zipf law over clusters (weight 1/(c+1)^zipf) and each of its
// tokens a Zipf law over the cluster's members (1/(m+1)^zipf), or, with probability
// --noise, the uniform law over the whole vocabulary. Frequencies so spread over every
// rank, from a few very common words to a long tail, as in real text.
//
// The output depends only on the options, never on --threads: lines are cut into chunks
// of a fixed number of lines, chunk i draws from its own stream Random(seed, i), threads
// fill chunks and one writer emits them in order through a ring of buffers (bounded
// memory). On stderr at the end: "tokens N bytes B seconds S MB/s R".
//
// Speed (hundreds of MB/s per core at millions of words) comes from drawing in O(1)
// (Walker/Vose alias tables), copying each cluster's most drawn members from precomputed
// text with one fixed-size memcpy, and prefetching the clusters of the lines ahead:
// without that, a large vocabulary's cold clusters leave each line waiting for memory.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cluster_tokens.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/parallel.h"
#include "train/engine/random.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Tokens per chunk, about: 4096 lines of 20 words, some 400 KB of text. Lines per chunk
// come from --line-words alone, so that the cut, and with it the output, never depends
// on --threads.
constexpr std::uint64_t kChunkTokens = 4096 * 20;
// Each token's text is copied with one fixed 16-byte memcpy (cheaper than a variable
// one); buffers keep this much slack past their end for it.
constexpr std::size_t kCopyBytes = 16;
static_assert(bench::kMaxTokenChars + 1 <= kCopyBytes);
// How many lines ahead fill_chunk prefetches a line's cluster: its offsets first, then,
// once they are in cache, its text. On a large vocabulary most clusters are cold and a
// line would otherwise wait for memory at every member it draws.
constexpr std::uint64_t kOffsetsAhead = 8;
constexpr std::uint64_t kTextAhead = 4;
// Members per cluster with precomputed text (Plan::text): about what three prefetched
// cache lines hold, tokens being up to 8 bytes. With Zipf 1 they are most of the draws.
constexpr std::uint64_t kHotMembers = 24;

struct Options {
  std::uint64_t vocab = 0;
  std::uint64_t cluster_size = 0;
  std::uint64_t words = 0;
  std::string out;
  std::uint64_t seed = 1;
  unsigned threads = embed::default_thread_count();
  double noise = 0.05;
  std::uint64_t line_words = 20;
  double zipf = 1.0;
};

// Walker's alias method, as Vose builds it: one draw in O(1), whatever the number of
// outcomes (binary search over cumulative weights would cost a cache miss per step on
// large vocabularies).
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights) : bins_(weights.size()) {
    const std::size_t n = weights.size();
    double total = 0;
    for (double w : weights) total += w;
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = weights[i] * static_cast<double>(n) / total;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      bins_[s] = {threshold(scaled[s]), l};
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    // What is left is 1 up to rounding: always itself.
    for (std::uint32_t i : small) bins_[i] = {UINT32_MAX, i};
    for (std::uint32_t i : large) bins_[i] = {UINT32_MAX, i};
  }

  // One outcome from 64 random bits: the high half picks the bin (multiply-shift), the
  // low half decides between the bin and its alias.
  std::uint32_t draw(std::uint64_t bits) const {
    const std::uint64_t i = ((bits >> 32) * bins_.size()) >> 32;
    const Bin& bin = bins_[i];
    return static_cast<std::uint32_t>(bits) < bin.threshold ? static_cast<std::uint32_t>(i) : bin.alias;
  }

 private:
  struct Bin {
    std::uint32_t threshold;  // keep the bin when the low 32 bits are below this
    std::uint32_t alias;
  };
  static std::uint32_t threshold(double p) { return p >= 1.0 ? UINT32_MAX : static_cast<std::uint32_t>(p * 4294967296.0); }
  std::vector<Bin> bins_;
};

std::vector<double> zipf_weights(std::uint64_t n, double exponent) {
  std::vector<double> w(n);
  for (std::uint64_t i = 0; i < n; ++i) w[i] = std::pow(static_cast<double>(i + 1), -exponent);
  return w;
}

// Everything a chunk needs, built once and shared read-only by the threads.
struct Plan {
  Options opt;
  std::uint64_t clusters = 0;
  std::uint64_t lines = 0;            // ceil(words / line_words)
  std::uint64_t last_line_words = 0;  // so that the total is exactly --words
  std::uint64_t lines_per_chunk = 0;
  std::uint64_t chunks = 0;
  std::size_t chunk_capacity = 0;  // bytes a chunk may take, slack included
  std::optional<AliasTable> cluster_table;
  std::optional<AliasTable> member_table;       // a full cluster's S members
  std::optional<AliasTable> last_member_table;  // the last cluster's, which may be smaller
  std::uint64_t noise_threshold = 0;            // a token is noise when 64 random bits fall below this
  // The text of each cluster's first `hot` members, the most drawn, each followed by a
  // space, back to back: member m < hot of cluster c is slot c * hot + m, whose text is
  // text[offsets[slot], offsets[slot + 1]) (empty past the vocabulary's end). Emitting
  // one is a memcpy. Rarer members are spelt on the spot (spell_token: the same bytes),
  // which costs less than a table lookup that misses the cache, as theirs mostly would.
  std::uint64_t hot = 0;
  std::vector<char> text;
  std::vector<std::uint64_t> offsets;
};

Plan make_plan(const Options& opt) {
  Plan plan;
  plan.opt = opt;
  plan.clusters = (opt.vocab + opt.cluster_size - 1) / opt.cluster_size;
  plan.lines = (opt.words + opt.line_words - 1) / opt.line_words;
  plan.last_line_words = opt.words - (plan.lines - 1) * opt.line_words;
  plan.lines_per_chunk = std::max<std::uint64_t>(1, kChunkTokens / opt.line_words);
  plan.chunks = (plan.lines + plan.lines_per_chunk - 1) / plan.lines_per_chunk;

  plan.hot = std::min<std::uint64_t>(opt.cluster_size, kHotMembers);
  const std::uint64_t slots = plan.clusters * plan.hot;
  plan.offsets.resize(slots + 1);
  char spelling[bench::kMaxTokenChars];
  for (std::uint64_t slot = 0; slot < slots; ++slot) {
    plan.offsets[slot] = plan.text.size();
    const std::uint64_t id = slot / plan.hot * opt.cluster_size + slot % plan.hot;
    if (id >= opt.vocab) continue;  // the last cluster is smaller: never drawn
    const std::size_t n = bench::spell_token(id, spelling);
    plan.text.insert(plan.text.end(), spelling, spelling + n);
    plan.text.push_back(' ');
  }
  plan.offsets[slots] = plan.text.size();
  plan.text.resize(plan.text.size() + kCopyBytes);
  const std::size_t longest = bench::spell_token(opt.vocab - 1, spelling) + 1;
  plan.chunk_capacity = plan.lines_per_chunk * opt.line_words * longest + kCopyBytes;

  plan.cluster_table.emplace(zipf_weights(plan.clusters, opt.zipf));
  plan.member_table.emplace(zipf_weights(std::min(opt.cluster_size, opt.vocab), opt.zipf));
  plan.last_member_table.emplace(zipf_weights(opt.vocab - (plan.clusters - 1) * opt.cluster_size, opt.zipf));
  plan.noise_threshold = opt.noise >= 1.0 ? UINT64_MAX : static_cast<std::uint64_t>(opt.noise * 18446744073709551616.0);
  return plan;
}

// Writes chunk `chunk` at `out` (plan.chunk_capacity bytes); returns its length.
// `clusters`: scratch for the chunk's line clusters (plan.lines_per_chunk entries), all
// drawn before the first token, so that later lines' data can be prefetched.
std::size_t fill_chunk(const Plan& plan, std::uint64_t chunk, char* out, std::uint32_t* clusters) {
  embed::Random rng(plan.opt.seed, chunk);
  const std::uint64_t first = chunk * plan.lines_per_chunk;
  const std::uint64_t lines = std::min(plan.lines, first + plan.lines_per_chunk) - first;
  const char* text = plan.text.data();
  const std::uint64_t* offsets = plan.offsets.data();
  const std::uint64_t noise = plan.noise_threshold;
  const std::uint64_t cluster_size = plan.opt.cluster_size;
  const std::uint64_t hot = plan.hot;
  const auto vocab = static_cast<std::uint32_t>(plan.opt.vocab);
  for (std::uint64_t i = 0; i < lines; ++i) clusters[i] = plan.cluster_table->draw(rng.next());
  char* p = out;
  for (std::uint64_t i = 0; i < lines; ++i) {
    if (i + kOffsetsAhead < lines) __builtin_prefetch(offsets + clusters[i + kOffsetsAhead] * hot);
    if (i + kTextAhead < lines) {
      // The first members are the most drawn (Zipf): their text, three cache lines' worth.
      const char* ahead = text + offsets[clusters[i + kTextAhead] * hot];
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 64);
      __builtin_prefetch(ahead + 128);
    }
    const std::uint64_t count = first + i + 1 == plan.lines ? plan.last_line_words : plan.opt.line_words;
    const std::uint32_t cluster = clusters[i];
    const AliasTable& members = cluster + 1 == plan.clusters ? *plan.last_member_table : *plan.member_table;
    const std::uint64_t base = cluster * cluster_size;
    for (std::uint64_t t = 0; t < count; ++t) {
      if (noise != 0 && rng.next() < noise) {
        // Spelt here rather than looked up: a uniform id misses every cache level (and the
        // TLB) of a large vocabulary's table, which costs more than the few digits.
        p += bench::spell_token(rng.below(vocab), p);
        *p++ = ' ';
        continue;
      }
      const std::uint32_t member = members.draw(rng.next());
      if (member >= hot) {
        p += bench::spell_token(base + member, p);
        *p++ = ' ';
        continue;
      }
      const std::uint64_t slot = cluster * hot + member;
      const std::uint64_t from = offsets[slot];
      std::memcpy(p, text + from, kCopyBytes);
      p += offsets[slot + 1] - from;
    }
    p[-1] = '\n';  // the last token's space ends the line
  }
  return static_cast<std::size_t>(p - out);
}

// Where the text goes. A regular file (or a new path) appears whole, through a temporary
// renamed into place; standard output ("-"), /dev/null or a fifo, which a rename would
// replace, is written as it comes (core/atomic_output.h).
class Sink {
 public:
  explicit Sink(const std::string& path) : out_(path, embed::Streaming::allowed) {}

  void write(const char* data, std::size_t size) { out_.write(data, size); }
  void commit() { out_.commit(); }

 private:
  embed::AtomicOutput out_;
};

// Returns the bytes written.
std::uint64_t generate_serial(const Plan& plan, Sink& sink) {
  std::vector<char> buffer(plan.chunk_capacity);
  std::vector<std::uint32_t> clusters(plan.lines_per_chunk);
  std::uint64_t bytes = 0;
  for (std::uint64_t c = 0; c < plan.chunks; ++c) {
    const std::size_t n = fill_chunk(plan, c, buffer.data(), clusters.data());
    sink.write(buffer.data(), n);
    bytes += n;
  }
  return bytes;
}

// `threads` workers fill chunks into a ring of 2 x threads buffers; this thread writes
// them in order. A worker takes chunk c only once chunk c - slots is written, so memory
// stays at the ring whatever the corpus size. Returns the bytes written.
std::uint64_t generate_parallel(const Plan& plan, Sink& sink, unsigned threads) {
  const std::uint64_t slots = 2 * static_cast<std::uint64_t>(threads);
  std::vector<std::vector<char>> buffers(slots, std::vector<char>(plan.chunk_capacity));
  std::vector<std::size_t> sizes(slots);
  std::vector<std::uint64_t> ready(slots, UINT64_MAX);  // which chunk each slot holds, when filled
  std::mutex mutex;
  std::condition_variable filled, freed;
  std::uint64_t written = 0;  // chunks [0, written) are out
  std::uint64_t next = 0;     // the next chunk to hand to a worker
  bool stop = false;          // the writer failed: workers leave
  std::exception_ptr worker_error;

  auto work = [&] {
    try {
      std::vector<std::uint32_t> clusters(plan.lines_per_chunk);
      for (;;) {
        std::uint64_t c;
        {
          std::unique_lock lock(mutex);
          if (stop || next >= plan.chunks) return;
          c = next++;
          freed.wait(lock, [&] { return stop || c < written + slots; });
          if (stop) return;
        }
        const std::uint64_t slot = c % slots;
        const std::size_t n = fill_chunk(plan, c, buffers[slot].data(), clusters.data());
        {
          std::lock_guard lock(mutex);
          sizes[slot] = n;
          ready[slot] = c;
        }
        filled.notify_one();
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!worker_error) worker_error = std::current_exception();
      stop = true;
      filled.notify_all();
      freed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);

  std::uint64_t bytes = 0;
  std::exception_ptr writer_error;
  try {
    for (std::uint64_t c = 0; c < plan.chunks; ++c) {
      const std::uint64_t slot = c % slots;
      {
        std::unique_lock lock(mutex);
        filled.wait(lock, [&] { return stop || ready[slot] == c; });
        if (stop) break;
      }
      sink.write(buffers[slot].data(), sizes[slot]);
      bytes += sizes[slot];
      {
        std::lock_guard lock(mutex);
        written = c + 1;
      }
      freed.notify_all();
    }
  } catch (...) {
    writer_error = std::current_exception();
    std::lock_guard lock(mutex);
    stop = true;
    freed.notify_all();
  }
  for (std::thread& t : pool) t.join();
  if (worker_error) std::rethrow_exception(worker_error);
  if (writer_error) std::rethrow_exception(writer_error);
  return bytes;
}

// The rules the option parser cannot state. Returns the message, or empty.
std::string check(const Options& opt) {
  if (opt.vocab == 0 || opt.vocab > UINT32_MAX) return "--vocab must be in [1, 4294967295]";
  if (opt.cluster_size == 0 || opt.cluster_size > opt.vocab) return "--cluster-size must be in [1, --vocab]";
  if (opt.words == 0) return "--words must be at least 1";
  if (opt.line_words == 0) return "--line-words must be at least 1";
  if (opt.line_words > 100'000'000) return "--line-words must be at most 100000000";
  if (!(opt.noise >= 0 && opt.noise <= 1)) return "--noise must be in [0, 1]";
  if (!(opt.zipf >= 0 && opt.zipf <= 100)) return "--zipf must be in [0, 100]";
  if (opt.threads == 0) return "--threads must be at least 1";
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app(std::string("bench-gen-clusters: a synthetic corpus in which every line is drawn from one cluster of\n"
                           "words, for measuring how well a trainer recovers the clusters (bench-cluster-quality).\n") +
               bench::kClusterMapping +
               "\nA line's cluster follows Zipf over clusters (1/(c+1)^zipf), its tokens Zipf over the\n"
               "cluster's members (1/(m+1)^zipf), or with probability --noise the uniform law over all ids.\n"
               "The output is the same for every --threads. Exit status: 0 done, 1 failure, 2 bad usage.");
  app.add_option("--vocab", opt.vocab, "V: the number of distinct tokens")->required();
  app.add_option("--cluster-size", opt.cluster_size, "S: tokens per cluster")->required();
  app.add_option("--words", opt.words, "N: the total number of tokens written")->required();
  app.add_option("--out", opt.out, "the text to write, - for stdout")->required();
  app.add_option("--seed", opt.seed, "random seed")->capture_default_str();
  app.add_option("--threads", opt.threads, "generating threads (default: all cores)");
  app.add_option("--noise", opt.noise, "share of tokens drawn from the whole vocabulary")->capture_default_str();
  app.add_option("--line-words", opt.line_words, "tokens per line (the last line may be shorter)")->capture_default_str();
  app.add_option("--zipf", opt.zipf, "exponent of both Zipf laws (0: uniform)")->capture_default_str();
  try {
    app.parse(argc, argv);
    if (const std::string problem = check(opt); !problem.empty()) throw CLI::ValidationError(problem);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "bench-gen-clusters: error: %s; see --help\n", e.what());
    return kExitUsage;
  }

  try {
    const auto start = std::chrono::steady_clock::now();
    const Plan plan = make_plan(opt);
    Sink sink(opt.out);
    const unsigned threads = static_cast<unsigned>(std::min<std::uint64_t>(opt.threads, plan.chunks));
    const std::uint64_t bytes = threads <= 1 ? generate_serial(plan, sink) : generate_parallel(plan, sink, threads);
    sink.commit();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "tokens %llu bytes %llu seconds %.3f MB/s %.1f\n", static_cast<unsigned long long>(opt.words),
                 static_cast<unsigned long long>(bytes), seconds, static_cast<double>(bytes) / 1e6 / seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-gen-clusters: error: %s\n", e.what());
    return kExitFailure;
  }
  return 0;
}
