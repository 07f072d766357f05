#include "plot/metrics_file.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <filesystem>
#include <optional>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/excerpt.h"

namespace embed {
namespace {

struct JsonValue {
  std::optional<std::string> text;  // a string
  double number = 0;                // a number, or NaN for null
};

// Parses one flat JSON object ({"key":value,...}); nullopt when the line is not one.
std::optional<std::map<std::string, JsonValue>> parse_flat_object(std::string_view line) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  };
  const auto read_string = [&]() -> std::optional<std::string> {
    if (i >= line.size() || line[i] != '"') return std::nullopt;
    std::string out;
    for (++i; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && ++i == line.size()) return std::nullopt;
      out += line[i];
    }
    if (i == line.size()) return std::nullopt;
    ++i;
    return out;
  };
  std::map<std::string, JsonValue> object;
  skip_space();
  if (i == line.size() || line[i++] != '{') return std::nullopt;
  skip_space();
  if (i < line.size() && line[i] == '}') return object;
  while (true) {
    skip_space();
    const auto key = read_string();
    skip_space();
    if (!key || i == line.size() || line[i++] != ':') return std::nullopt;
    skip_space();
    JsonValue value;
    if (i < line.size() && line[i] == '"') {
      value.text = read_string();
      if (!value.text) return std::nullopt;
    } else if (line.substr(i, 4) == "null") {
      value.number = std::numeric_limits<double>::quiet_NaN();
      i += 4;
    } else {
      const auto [end, error] = std::from_chars(line.data() + i, line.data() + line.size(), value.number);
      if (error != std::errc()) return std::nullopt;
      i = static_cast<std::size_t>(end - line.data());
    }
    object[*key] = value;
    skip_space();
    if (i == line.size()) return std::nullopt;
    if (line[i] == '}') break;
    if (line[i++] != ',') return std::nullopt;
  }
  ++i;
  skip_space();
  if (i != line.size()) return std::nullopt;
  return object;
}

}  // namespace

LossCurve read_metrics_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) fail("{}: is a directory, not a --metrics file", path);
  std::ifstream in(path);
  if (!in) fail("{}: cannot open: {}", path, std::strerror(errno));
  LossCurve curve;
  std::string line;
  unsigned long long number = 0;
  constexpr const char* kShape = "a line of embed-train --metrics ({\"event\":...,\"done\":...,\"lr\":...,\"loss\":...})";
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto object = parse_flat_object(line);
    if (!object) fail_at(path, number, "expected {}, got \"{}\"", kShape, excerpt(line));
    const auto field = [&](const char* name, bool is_text) -> const JsonValue& {
      const auto it = object->find(name);
      if (it == object->end() || it->second.text.has_value() != is_text) {
        fail_at(path, number, "expected {} with a{} \"{}\" field", kShape, is_text ? " string" : " numeric", name);
      }
      return it->second;
    };
    const std::string& event = *field("event", true).text;
    if (event != "progress" && event != "epoch") {
      fail_at(path, number, "expected \"event\" to be \"progress\" or \"epoch\", got \"{}\"", excerpt(event));
    }
    LossPoint point;
    point.done = field("done", false).number;
    point.lr = field("lr", false).number;
    point.loss = field("loss", false).number;
    const double epoch = field("epoch", false).number;
    if (!std::isfinite(point.done) || point.done < 0 || !(epoch >= 1 && epoch < 1e9)) {
      fail_at(path, number, "expected a count of items done and a 1-based epoch, got \"{}\"", excerpt(line));
    }
    point.epoch = static_cast<unsigned>(epoch);
    point.epoch_end = event == "epoch";
    const auto unit = object->find("unit");
    if (unit != object->end() && unit->second.text) curve.unit = *unit->second.text;
    curve.points.push_back(point);
  }
  if (in.bad()) fail("{}: cannot read the metrics file", path);
  if (curve.points.empty()) fail("{}: no metrics in it (expected the JSON lines of embed-train --metrics)", path);
  return curve;
}

int run_plot_command(const std::string& path, const std::string& output) {
  AtomicOutput out(output, Streaming::allowed);  // an unwritable destination fails first
  const LossCurve curve = read_metrics_file(path);
  out.write(loss_plot_svg(curve, std::filesystem::path(path).filename().string() + " \u2014 loss and learning rate"));
  out.commit();
  return 0;
}

}  // namespace embed
