"""Tiny inline-SVG charts for the HTML report (no plotting dependency, no external asset)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

_W, _BAR_H, _GAP, _LABEL_W, _PAD = 520, 18, 6, 170, 60


def bar_chart(values: Mapping[str, float], *, max_value: float | None = None,
              secondary: Mapping[str, float] | None = None) -> str:
    """Horizontal bars, one per key, labelled with the value.

    Args:
        values: Label → value (≥ 0).
        max_value: Full-scale value (default: the largest value, or 1).
        secondary: Label → a reference length drawn as a light bar behind (e.g. the max).
    """
    if not values:
        return "<p>(no data)</p>"
    top = max_value or max([*values.values(), *(secondary or {}).values(), 1e-9])
    top = max(top, *(secondary or {}).values(), *values.values())
    width = _W - _LABEL_W - _PAD
    height = len(values) * (_BAR_H + _GAP) + _GAP
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height}" '
             f'role="img">']
    for i, (label, value) in enumerate(values.items()):
        y = _GAP + i * (_BAR_H + _GAP)
        if secondary and label in secondary:
            w2 = width * max(0.0, secondary[label]) / top if top else 0
            parts.append(f'<rect x="{_LABEL_W}" y="{y}" width="{w2:.1f}" height="{_BAR_H}" '
                         'fill="#e4e4e4"/>')
        w = width * max(0.0, value) / top if top else 0
        parts.append(
            f'<text x="{_LABEL_W - 4}" y="{y + 13}" font-size="11" text-anchor="end">'
            f'{html.escape(label[:28])}</text>'
            f'<rect x="{_LABEL_W}" y="{y}" width="{w:.1f}" height="{_BAR_H}" fill="#4a7ab5"/>'
            f'<text x="{_LABEL_W + w + 4:.1f}" y="{y + 13}" font-size="11">{value:.4g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def histogram(values: Sequence[float], *, lo: float, hi: float, bins: int = 10) -> str:
    """Vertical bars counting ``values`` in ``bins`` equal bins over [lo, hi]."""
    if not values:
        return "<p>(no data)</p>"
    counts = [0] * bins
    step = (hi - lo) / bins
    for v in values:
        counts[min(bins - 1, max(0, int((v - lo) // step)))] += 1
    height, bottom = 180, 20
    bw = (_W - 40) / bins
    peak = max(counts)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height + bottom}" '
             'role="img">']
    for i, c in enumerate(counts):
        h = (height - 20) * c / peak if peak else 0
        x = 20 + i * bw
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{height - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" '
            f'fill="#4a7ab5"/><text x="{x + bw / 2:.1f}" y="{height - h - 3:.1f}" '
            f'font-size="10" text-anchor="middle">{c}</text>'
            f'<text x="{x + bw / 2:.1f}" y="{height + 14}" font-size="9" '
            f'text-anchor="middle">{lo + i * step:.0f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
