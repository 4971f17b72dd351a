#!/usr/bin/env python3
"""pngstat.py - prints how many distinct colours a PNG holds (8-bit RGB or RGBA, not interlaced),
so that a test can tell a rendered page from a blank one. Standard library only.
Usage: pngstat.py FILE; exit 1 with a message on anything else."""
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG layout")
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev = zlib.decompress(idat), width * bpp, bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield line, bpp


def main():
    colours = set()
    try:
        for y, (line, bpp) in enumerate(rows(sys.argv[1])):
            if y % 4 == 0:
                colours.update(bytes(line[i:i + 3]) for i in range(0, len(line), bpp * 2))
    except (OSError, ValueError, IndexError, struct.error, zlib.error, TypeError) as e:
        print(f"pngstat: {e}", file=sys.stderr)
        return 1
    print(len(colours))
    return 0


if __name__ == "__main__":
    sys.exit(main())
