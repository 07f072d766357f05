// A self-contained SVG document built as a string: shapes and text with inline
// attributes only (no external fonts, scripts or style sheets), coordinates written
// with a fixed number of decimals so that the same picture is always the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace embed {

// `text` with XML's special characters (& < > " ') replaced by entities, for element
// text and attribute values alike. UTF-8 passes through unchanged.
std::string xml_escape(std::string_view text);

// A coordinate or length: two decimals, no exponent, "-0.00" written as "0.00".
// Non-finite values are a caller's bug (EMBED_ASSERT).
std::string svg_number(double value);

class SvgWriter {
 public:
  // Starts a document of `width` x `height` user units (also its viewBox) on a white
  // background, with `title` as its <title> (what a viewer shows as the tooltip).
  SvgWriter(double width, double height, std::string_view title);

  // `style`: extra attributes written as they are (already escaped), e.g. `fill="#333"`.
  void line(double x1, double y1, double x2, double y2, std::string_view style);
  void rect(double x, double y, double width, double height, std::string_view style);
  void circle(double cx, double cy, double r, std::string_view style);
  // A polyline through the points given as "x,y x,y ..." (see point_list).
  void polyline(std::string_view points, std::string_view style);
  // Text whose anchor point is (x, y); `text` is escaped here.
  void text(double x, double y, std::string_view text, std::string_view style);

  // The finished document (ends it: nothing may be added afterwards).
  std::string finish();

 private:
  std::string out_;
  bool finished_ = false;
};

// Appends "x,y " to a polyline's point list.
void add_point(std::string& points, double x, double y);

}  // namespace embed
