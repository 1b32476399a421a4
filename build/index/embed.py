"""Embed: a model2vec static model → unit vectors of passages, hooks and questions.

The default model is the project's own (corpus/embeddings/citavial-static-v1, trained offline by
build/index/make/train.py). Any other model2vec model can be used by path, or by name if it is already
in the local Hugging Face cache (e.g. potion-multilingual-128M); nothing is ever downloaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from citavial.build import paths
from citavial.build.errors import BuildError
from citavial.build.index.analyze import MEMO_LIMIT, STOP_WORDS, fold, stem
from citavial.build.patterns import SEARCH_WORD

DEFAULT_MODEL = paths.EMBEDDINGS / "citavial-static-v1"
ENV_VAR = paths.EMBEDDINGS_ENV
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def corpus_model(corpus_dir: Path) -> str:
    """The model a build over ``corpus_dir`` uses: $CITAVIAL_EMBEDDINGS, else the corpus's own
    embeddings/<default name> (so a build from an installed wheel reads the corpus it is given)."""
    return os.environ.get(ENV_VAR) or str(Path(corpus_dir) / "embeddings" / DEFAULT_MODEL.name)


def resolve_model(spec: str | os.PathLike | None = None) -> Path:
    """The local folder of the model named by ``spec``, $CITAVIAL_EMBEDDINGS or the default.

    A name that is not a folder is looked up in the local Hugging Face cache only
    ("potion-multilingual-128M" is tried as "minishlab/potion-multilingual-128M").
    """
    spec = spec if spec is not None else (os.environ.get(ENV_VAR) or DEFAULT_MODEL)
    path = Path(spec).expanduser()
    if path.is_dir():
        return _check_folder(path, str(spec))
    name = str(spec)
    from model2vec.persistence.hf import maybe_get_cached_model_path
    for repo in (name, f"minishlab/{name}") if "/" not in name else (name,):
        cached = maybe_get_cached_model_path(repo)
        if cached is not None:
            return _check_folder(cached, name)
    raise BuildError(
        f"{ENV_VAR}={name}" if os.environ.get(ENV_VAR) == name else f"embeddings model {name!r}",
        "is neither a model folder nor a model in the local Hugging Face cache "
        "(models are never downloaded)",
        "pass the path of a model2vec folder (config.json, model.safetensors, tokenizer.json), "
        f"or unset {ENV_VAR} to use the bundled {DEFAULT_MODEL.name}")


def _check_folder(path: Path, spec: str) -> Path:
    missing = [f for f in MODEL_FILES if not (path / f).is_file()]
    if missing:
        raise BuildError(str(path), f"embeddings model {spec!r} lacks {', '.join(missing)}",
                         "point to a model2vec folder (config.json, model.safetensors, "
                         "tokenizer.json)")
    return path


class Embedder:
    """A loaded static model. ``encode`` returns float32 rows of unit length (zero rows for
    texts with no known word): the mean of the tokens' vectors, as model2vec's StaticModel
    computes it (tests/test_index_embed.py checks they agree). The files are read directly
    with safetensors and tokenizers, so a query process does not import model2vec and
    huggingface_hub (half a second); layouts this reader does not know go through StaticModel.
    """

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        self.path = Path(folder)
        config = json.loads((self.path / "config.json").read_text(encoding="utf-8"))
        self.name = config.get("citavial_name") or self.path.name
        # Our own models know stems: a word missing from the vocabulary falls back to its stem.
        self.stem_fallback = bool(config.get("citavial_stem_fallback"))
        tensors = load_file(str(self.path / "model.safetensors"))
        self._static = None
        self._word_ids: _WordIds | None = None
        if "embeddings" not in tensors or "weights" in tensors or "mapping" in tensors:
            from model2vec import StaticModel
            self._static = StaticModel.from_pretrained(self.path, force_download=False)
            self.matrix = np.asarray(self._static.embedding, dtype=np.float32)
            return
        self.matrix = np.asarray(tensors["embeddings"], dtype=np.float32)
        if self.stem_fallback:
            tok = json.loads((self.path / "tokenizer.json").read_text(encoding="utf-8"))
            self.vocab: dict[str, int] = tok["model"]["vocab"]
        else:
            from tokenizers import Tokenizer
            self.tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
            self.tokenizer.no_padding()
            self.tokenizer.no_truncation()
            unk = getattr(self.tokenizer.model, "unk_token", None)
            self.unk_id = self.tokenizer.token_to_id(unk) if unk else None

    def __repr__(self) -> str:
        return f"Embedder({self.name}, dim {self.dim})"

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def token_ids(self, text: str) -> list[int]:
        """Vocabulary ids of ``text``'s words (stem-fallback models): a word's own id, else
        its stem's; a word with neither (or a stop word, a one-letter word) has none."""
        ids = self._word_ids
        if ids is None:
            ids = self._word_ids = _WordIds(self.vocab)
        return [i for i in map(ids.__getitem__, SEARCH_WORD.findall(fold(text))) if i >= 0]

    def _ids(self, texts: Sequence[str]) -> list[list[int]]:
        if self.stem_fallback:
            return [self.token_ids(t) for t in texts]
        encs = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [[i for i in e.ids if i != self.unk_id] for e in encs]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if self._static is not None:
            vecs = np.asarray(self._static.encode(list(texts), use_multiprocessing=False),
                              dtype=np.float32).reshape(len(texts), -1)
        else:
            vecs = _means(self.matrix, self._ids(texts))
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)


class _WordIds(dict):
    """A folded word → its vocabulary id (its stem's when the word is not in the vocabulary),
    -1 for none; ``words``' filter applied. Filled on first sight of each word, up to
    analyze.MEMO_LIMIT words (a worker's embedder lives as long as the worker)."""

    def __init__(self, vocab: dict[str, int]) -> None:
        super().__init__()
        self.vocab = vocab

    def __missing__(self, word: str) -> int:
        i = -1
        if len(word) > 1 and word not in STOP_WORDS:
            i = self.vocab.get(word, -1)
            if i < 0:
                i = self.vocab.get(stem(word), -1)
        if len(self) < MEMO_LIMIT:
            self[word] = i
        return i


def _means(matrix: np.ndarray, ids: Sequence[Sequence[int]]) -> np.ndarray:
    """Per text, the mean of its tokens' rows of ``matrix`` (a zero row for a text without
    tokens). The texts with the same number of tokens are averaged in one array operation,
    which gives the very float32 values of ``matrix[ids].mean(axis=0)`` text by text (numpy
    sums a column the same way for one text or for many of the same length: pinned by
    tests/test_index_embed.py)."""
    vecs = np.zeros((len(ids), matrix.shape[1]), dtype=np.float32)
    by_count: dict[int, list[int]] = {}
    for row, tokens in enumerate(ids):
        if tokens:
            by_count.setdefault(len(tokens), []).append(row)
    for rows in by_count.values():
        vecs[rows] = matrix[np.array([ids[r] for r in rows], dtype=np.intp)].mean(axis=1)
    return vecs


def load_embedder(spec: str | os.PathLike | None = None) -> Embedder:
    """Load the model named by ``spec`` (see resolve_model)."""
    return Embedder(resolve_model(spec))


def cosine_top(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine similarity of a unit query vector with every (unit) row of ``matrix``."""
    return matrix @ query
