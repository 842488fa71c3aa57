"""The detector rules in the audit: over-mocking, broad-assertion, yagni (PRODUCT.md §8, §9)."""

from __future__ import annotations
