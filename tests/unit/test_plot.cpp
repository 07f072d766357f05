#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "plot/label_layout.h"
#include "plot/loss_plot.h"
#include "plot/pca.h"
#include "plot/svg_writer.h"
#include "plot/word_map.h"

using embed::Box;
using embed::LabelRequest;

TEST_CASE("PCA of points on a line finds the line and all the variance", "[plot]") {
  // Five points along (1, 2, -2)/3 from an offset, in 3 dimensions.
  const double dir[3] = {1.0 / 3, 2.0 / 3, -2.0 / 3};
  std::vector<double> points;
  for (const double t : {-2.0, -1.0, 0.5, 1.0, 3.0}) {
    for (int d = 0; d < 3; ++d) points.push_back(5.0 + t * dir[d]);
  }
  const embed::Projection p = embed::pca_2d(points, 5, 3);
  CHECK(p.explained[0] == Approx(1.0).epsilon(1e-9));
  CHECK(p.explained[1] == Approx(0.0).margin(1e-9));
  // The largest coordinate in absolute value (2/3, a tie with -2/3 goes to the first) is positive.
  CHECK(p.axes[0] == Approx(dir[0]).margin(1e-9));
  CHECK(p.axes[1] == Approx(dir[1]).margin(1e-9));
  CHECK(p.axes[2] == Approx(dir[2]).margin(1e-9));
  // Coordinates along the line are t minus its mean (0.3).
  CHECK(p.coords[0] == Approx(-2.3).margin(1e-9));
  CHECK(p.coords[8] == Approx(2.7).margin(1e-9));
  for (std::size_t i = 0; i < 5; ++i) CHECK(p.coords[i * 2 + 1] == Approx(0.0).margin(1e-9));
}

TEST_CASE("PCA: the components follow the variance and the signs do not depend on the points' signs", "[plot]") {
  // Spread 3 along x, 1 along y, 0 along z.
  const std::vector<double> points = {3, 0, 0, -3, 0, 0, 0, 1, 0, 0, -1, 0};
  const embed::Projection p = embed::pca_2d(points, 4, 3);
  CHECK(p.explained[0] == Approx(0.9));
  CHECK(p.explained[1] == Approx(0.1));
  CHECK(p.axes[0] == Approx(1.0));
  CHECK(p.axes[4] == Approx(1.0));
  std::vector<double> flipped = points;
  for (double& x : flipped) x = -x;
  const embed::Projection q = embed::pca_2d(flipped, 4, 3);
  CHECK(q.axes == p.axes);
  // Run twice, the same numbers exactly.
  CHECK(embed::pca_2d(points, 4, 3).coords == p.coords);
}

TEST_CASE("PCA of coinciding points explains nothing and stays finite", "[plot]") {
  const std::vector<double> points = {1, 2, 1, 2, 1, 2};
  const embed::Projection p = embed::pca_2d(points, 3, 2);
  CHECK(p.explained[0] == 0.0);
  for (const double c : p.coords) CHECK(c == 0.0);
}

TEST_CASE("labels of spread-out points are placed without overlaps", "[plot]") {
  std::vector<LabelRequest> labels;
  for (int i = 0; i < 30; ++i) {
    // A jittered grid with neighbours close enough that right-of-point collides sometimes.
    labels.push_back({100.0 + (i % 6) * 110.0 + (i % 3) * 7.0, 80.0 + (i / 6) * 60.0 + (i % 4) * 9.0,
                      embed::estimate_text_width("word" + std::to_string(i * 37), 13), 13});
  }
  // A cluster of three points near one spot.
  labels.push_back({400, 380, 60, 13});
  labels.push_back({405, 384, 60, 13});
  labels.push_back({398, 390, 60, 13});
  const double radius = 3.5;
  const Box bounds{0, 0, 800, 480};
  const std::vector<Box> boxes = embed::place_labels(labels, radius, bounds);
  REQUIRE(boxes.size() == labels.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    CHECK(boxes[i].overlap_area(bounds) == Approx(boxes[i].width * boxes[i].height));
    for (std::size_t j = 0; j < boxes.size(); ++j) {
      if (j != i) CHECK_FALSE(boxes[i].overlaps(boxes[j]));
      const Box point{labels[j].x - radius, labels[j].y - radius, 2 * radius, 2 * radius};
      CHECK_FALSE(boxes[i].overlaps(point));
    }
  }
  // A label with room on the right goes there, beside its point, centred on it.
  for (const std::size_t i : {0, 5, 12, 29}) {
    CHECK(boxes[i].x == Approx(labels[i].x + radius + 2));
    CHECK(boxes[i].y + boxes[i].height / 2 == Approx(labels[i].y));
  }
}

TEST_CASE("wide characters are estimated wider", "[plot]") {
  CHECK(embed::estimate_text_width("abcd", 10) == Approx(24));
  CHECK(embed::estimate_text_width("日本", 10) == Approx(20));
  CHECK(embed::estimate_text_width("café", 10) == Approx(24));
}

TEST_CASE("XML special characters are escaped, UTF-8 kept", "[plot]") {
  CHECK(embed::xml_escape("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  CHECK(embed::xml_escape("naïve 日本") == "naïve 日本");
  CHECK(embed::svg_number(-0.001) == "0.00");
  CHECK(embed::svg_number(12.345678) == "12.35");
  embed::SvgWriter svg(10, 10, "t<&>");
  svg.text(1, 2, "<b>&'\"", "");
  const std::string doc = svg.finish();
  CHECK(doc.find("<title>t&lt;&amp;&gt;</title>") != std::string::npos);
  CHECK(doc.find(">&lt;b&gt;&amp;&apos;&quot;</text>") != std::string::npos);
  CHECK(doc.find("<b>") == std::string::npos);
}

TEST_CASE("a word map has a label per word, escaped, and is the same each time", "[plot]") {
  const std::vector<embed::MapWord> words = {{"a&b", false}, {"<c>", false}, {"日本", true}};
  embed::Projection p;
  p.coords = {0, 0, 1, 0, 0, 1};
  p.explained[0] = 0.5;
  p.explained[1] = 0.25;
  const std::string doc = embed::word_map_svg(words, p, "v's.emb");
  CHECK(doc.find(">a&amp;b</text>") != std::string::npos);
  CHECK(doc.find(">&lt;c&gt;</text>") != std::string::npos);
  CHECK(doc.find(">日本</text>") != std::string::npos);
  CHECK(doc.find("v&apos;s.emb \u2014 PCA, 2 components explain 75.0% of the variance") != std::string::npos);
  CHECK(embed::word_map_svg(words, p, "v's.emb") == doc);
}

TEST_CASE("a loss plot draws a lone point, and the epochs' lines", "[plot]") {
  embed::LossCurve one;
  one.points.push_back({1000, 0.025, 2.5, true, 1});
  const std::string lone = embed::loss_plot_svg(one, "run");
  CHECK(lone.find("<circle") != std::string::npos);
  CHECK(lone.find("nan") == std::string::npos);
  CHECK(lone.find("inf") == std::string::npos);

  embed::LossCurve run;
  run.points = {{500, 0.02, 3.0, false, 1}, {1000, 0.015, 2.5, true, 1},
                {1500, 0.01, std::nan(""), false, 2}, {2000, 0.005, 2.0, true, 2}};
  const std::string doc = embed::loss_plot_svg(run, "run");
  std::size_t dashed = 0;
  for (std::size_t at = doc.find("stroke-dasharray"); at != std::string::npos; at = doc.find("stroke-dasharray", at + 1)) {
    ++dashed;
  }
  CHECK(dashed == 2);
  CHECK(doc.find("words processed") != std::string::npos);
  CHECK(doc.find("nan") == std::string::npos);
}
