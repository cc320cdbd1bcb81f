#!/usr/bin/env python3
"""Reads the QR code `pushgate pair` draws in the terminal with zxing-cpp (PyPI's
`zxing-cpp`, code nobody here wrote), and prints the text it holds.

    pushgate pair … | python3 Tests/pairing/qr_read.py

The drawing is two rows of modules a character (issue 82, TerminalQRCode): a light
module in the text's colour (█ both, ▀ the upper, ▄ the lower), a dark one as a space.
"""
import sys

import numpy
import zxingcpp

UPPER = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}


def modules(lines):
    """The symbol as rows of 0 (dark) and 1 (light)."""
    rows = []
    for line in lines:
        pairs = [UPPER[character] for character in line]
        rows.append([upper for upper, _ in pairs])
        rows.append([lower for _, lower in pairs])
    return rows


def main():
    drawn = [line.strip("\n")[2:] for line in sys.stdin if any(block in line for block in "█▀▄")]
    if not drawn:
        print("no QR code drawn", file=sys.stderr)
        return 1
    matrix = numpy.array(modules(drawn), dtype=numpy.uint8) * 255
    # A margin of light modules and each module 8 pixels: what a camera would see.
    image = numpy.kron(numpy.pad(matrix, 4, constant_values=255), numpy.ones((8, 8), dtype=numpy.uint8))
    found = zxingcpp.read_barcodes(image)
    if not found:
        print("zxing-cpp found no QR code", file=sys.stderr)
        return 1
    print(found[0].text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
