#!/usr/bin/env python3
# make-icon.py: draws blockscope's application icon from one description of its shapes and writes it twice:
# assets/icons/blockscope.svg (scalable) and assets/icons/blockscope-<N>.png (rasterized here, 4x4 supersampled,
# no imaging library needed). The picture: a 4x4 grid of thread blocks coloured by a heat field (the inferno
# colormap of assets/colormaps/), seen through a magnifying glass. Run it again after changing a shape.
import math
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "assets", "icons")
SIZES = (48, 128, 256)


def inferno(t):
    stops = []
    with open(os.path.join(ROOT, "assets", "colormaps", "inferno.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                stops.append([float(x) for x in line.split()])
    t = min(max(t, 0.0), 1.0)
    for a, b in zip(stops, stops[1:]):
        if a[0] <= t <= b[0]:
            u = (t - a[0]) / (b[0] - a[0])
            return tuple(int(round(255 * (a[i] + u * (b[i] - a[i])))) for i in (1, 2, 3))
    return tuple(int(255 * c) for c in stops[-1][1:])


# --- The shapes, in a 256-unit square ------------------------------------------------------------------------
BACKGROUND = (20, 22, 30)
RING = (236, 238, 244)
BG_RECT = (8, 8, 240, 240, 44)  # x, y, w, h, corner radius
GRID_X, GRID_Y, TILE, GAP, TILE_R = 34, 34, 38, 8, 6
HOT = (1.2, 1.0)  # the heat source, in tile coordinates
LENS = (160, 160, 58, 12)  # centre x, y, radius, ring width
HANDLE = ((204, 204), (236, 236), 11)  # from, to, half width


def tiles():
    out = []
    for j in range(4):
        for i in range(4):
            d = math.hypot(i - HOT[0], j - HOT[1])
            colour = inferno(1.0 - d / 4.2)
            x = GRID_X + i * (TILE + GAP)
            y = GRID_Y + j * (TILE + GAP)
            out.append((x, y, TILE, TILE, TILE_R, colour))
    return out


def rgb(c):
    return "rgb(%d,%d,%d)" % c


def svg():
    x, y, w, h, r = BG_RECT
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!-- blockscope icon: written by scripts/make-icon.py -->',
        '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">',
        f'  <rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{r}" fill="{rgb(BACKGROUND)}"/>',
    ]
    for tx, ty, tw, th, tr, c in tiles():
        parts.append(f'  <rect x="{tx}" y="{ty}" width="{tw}" height="{th}" rx="{tr}" fill="{rgb(c)}"/>')
    cx, cy, lr, lw = LENS
    (ax, ay), (bx, by), hw = HANDLE
    parts.append(f'  <circle cx="{cx}" cy="{cy}" r="{lr}" fill="rgb(255,255,255)" fill-opacity="0.12"/>')
    parts.append(f'  <circle cx="{cx}" cy="{cy}" r="{lr}" fill="none" stroke="{rgb(RING)}" stroke-width="{lw}"/>')
    parts.append(f'  <line x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}" stroke="{rgb(RING)}" stroke-width="{2 * hw}" '
                 'stroke-linecap="round"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def in_round_rect(px, py, x, y, w, h, r):
    if px < x or py < y or px > x + w or py > y + h:
        return False
    cx = min(max(px, x + r), x + w - r)
    cy = min(max(py, y + r), y + h - r)
    return (px - cx) ** 2 + (py - cy) ** 2 <= r * r


def colour_at(px, py, tile_list):
    """RGBA of the icon at (px, py) in icon units: shapes painted back to front."""
    if not in_round_rect(px, py, *BG_RECT):
        return (0, 0, 0, 0)
    c = BACKGROUND
    for tx, ty, tw, th, tr, tc in tile_list:
        if in_round_rect(px, py, tx, ty, tw, th, tr):
            c = tc
            break
    cx, cy, lr, lw = LENS
    d = math.hypot(px - cx, py - cy)
    if d <= lr:  # the lens brightens what it covers a little
        c = tuple(int(v + (255 - v) * 0.12) for v in c)
    if abs(d - lr) <= lw / 2:
        c = RING
    (ax, ay), (bx, by), hw = HANDLE
    vx, vy = bx - ax, by - ay
    t = min(max(((px - ax) * vx + (py - ay) * vy) / (vx * vx + vy * vy), 0.0), 1.0)
    if math.hypot(px - (ax + t * vx), py - (ay + t * vy)) <= hw:
        c = RING
    return (c[0], c[1], c[2], 255)


def png(size):
    tile_list = tiles()
    ss = 4
    rows = []
    for y in range(size):
        row = bytearray([0])  # filter: none
        for x in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(ss):
                for sx in range(ss):
                    u = (x + (sx + 0.5) / ss) * 256.0 / size
                    v = (y + (sy + 0.5) / ss) * 256.0 / size
                    r, g, b, a = colour_at(u, v, tile_list)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            n = ss * ss
            alpha = acc[3] / n
            if acc[3]:
                row += bytes((round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(alpha)))
            else:
                row += bytes(4)
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) +
            chunk(b"IEND", b""))


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "blockscope.svg"), "w") as f:
        f.write(svg())
    for s in SIZES:
        with open(os.path.join(OUT, f"blockscope-{s}.png"), "wb") as f:
            f.write(png(s))
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
