"""Authored content: study guides, the practice bank, the prose check and the bank's tells."""
