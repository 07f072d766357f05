"""Checks an SVG file that embed-query map or embed-train --plot wrote: well-formed XML
with an <svg> root, a viewBox, and every coordinate a finite number. Prints the text of
each <text> element, one per line, for the caller to look for words.
Usage: python3 check_svg.py FILE.svg   (exit 1 with a message when a check fails)"""
import math
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
NUMERIC = {"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height"}


def fail(message):
    print(f"check_svg: {sys.argv[1]}: {message}", file=sys.stderr)
    sys.exit(1)


try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    fail(f"not well-formed XML: {e}")
if root.tag != NS + "svg":
    fail(f"root is {root.tag}, not svg")
if len(root.get("viewBox", "").split()) != 4:
    fail("no viewBox")
for element in root.iter():
    values = [element.get(name) for name in NUMERIC if element.get(name) is not None]
    if element.get("points") is not None:
        values += element.get("points").replace(",", " ").split()
    for value in values:
        try:
            number = float(value)
        except ValueError:
            fail(f"<{element.tag[len(NS):]}> has a coordinate that is not a number: {value!r}")
        if not math.isfinite(number):
            fail(f"<{element.tag[len(NS):]}> has a coordinate that is not finite: {value!r}")
for text in root.iter(NS + "text"):
    print(text.text or "")
