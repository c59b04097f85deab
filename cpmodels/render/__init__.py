"""Results as JSON payloads, terminal text and pictures (SVG, PNG, sweep heatmaps)."""

from cpmodels.render.payload import count_payload, packing_payload, towers_payload
from cpmodels.render.text import count_text, packing_text, towers_text

__all__ = ["count_payload", "count_text", "packing_payload", "packing_text", "towers_payload",
           "towers_text"]
