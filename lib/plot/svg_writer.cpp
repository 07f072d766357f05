#include "plot/svg_writer.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"

namespace embed {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_number(double value) {
  EMBED_ASSERT(std::isfinite(value));
  std::string s = fmt::format("{:.2f}", value);
  return s == "-0.00" ? "0.00" : s;
}

SvgWriter::SvgWriter(double width, double height, std::string_view title) {
  out_ = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n"
      "<title>{2}</title>\n",
      svg_number(width), svg_number(height), xml_escape(title));
  rect(0, 0, width, height, "fill=\"#ffffff\"");
}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view style) {
  out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {}/>\n", svg_number(x1), svg_number(y1),
                      svg_number(x2), svg_number(y2), style);
}

void SvgWriter::rect(double x, double y, double width, double height, std::string_view style) {
  out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {}/>\n", svg_number(x), svg_number(y),
                      svg_number(width), svg_number(height), style);
}

void SvgWriter::circle(double cx, double cy, double r, std::string_view style) {
  out_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {}/>\n", svg_number(cx), svg_number(cy), svg_number(r),
                      style);
}

void SvgWriter::polyline(std::string_view points, std::string_view style) {
  out_ += fmt::format("<polyline fill=\"none\" points=\"{}\" {}/>\n", points, style);
}

void SvgWriter::text(double x, double y, std::string_view text, std::string_view style) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\" {}>{}</text>\n", svg_number(x), svg_number(y), style,
                      xml_escape(text));
}

std::string SvgWriter::finish() {
  EMBED_ASSERT(!finished_);
  finished_ = true;
  out_ += "</svg>\n";
  return std::move(out_);
}

void add_point(std::string& points, double x, double y) {
  if (!points.empty()) points += ' ';
  points += svg_number(x);
  points += ',';
  points += svg_number(y);
}

}  // namespace embed
