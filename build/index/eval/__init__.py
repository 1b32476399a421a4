"""Evaluation: the search scored on the golden set (retrieval) with pure ranking metrics."""
