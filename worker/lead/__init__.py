"""The optional model lead: the model, prompts, streaming guard, sanitizer, segmenter, support."""
