"""Exact (combinatorial) analysis of the four games: par sheets from the variant rules."""
