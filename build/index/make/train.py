"""Train: the project's own static word vectors, saved in model2vec's format.

No registry package ships multilingual model2vec weights and nothing may be downloaded, so the
default embedding model is learnt from what the repository holds: the passages and the question
hooks (never the golden set). Each hook question is appended to the passage it points to, so a
student's words ("moto", "luces largas") co-occur with the regulation's ("motocicleta",
"alumbrado de carretera"). Vectors are a truncated SVD of the log-tf·idf weighted
stem × passage matrix (latent semantic analysis); every surface form seen gets its stem's vector,
scaled by the stem's idf (model2vec mean-pools, so the norm is the word's weight). Deterministic:
the same passages and hooks give the same bytes.

Run: .venv/bin/python -m citavial.build.index.make.train [--hooks HOOKS.jsonl ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import numpy as np

from citavial.build import paths
from citavial.build.atomic import write_bytes, write_text
from citavial.build.index.collect import contexts
from citavial.build.index.hooks import DEV_CLEAN_HOOKS, Hook
from citavial.build.models import Passage
from citavial.build.text import ACCENT_FOLDS, STOP_WORDS, stem, words

NAME = "citavial-static-v1"
DIM = 128
SPECIALS = ("[PAD]", "[UNK]")

def _documents(passages: Sequence[Passage], hooks: Sequence[Hook]) -> list[list[str]]:
    ctx = contexts(passages)
    docs = [words(f"{p.title} {ctx[p.ref]} {p.text}") for p in passages]
    row = {p.ref: i for i, p in enumerate(passages)}
    for h in hooks:
        docs[row[h.ref]].extend(words(h.question))
    return docs


def _lsa(stem_docs: list[list[str]], dim: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Stems, their unit LSA vectors (rows) and their idf."""
    stems = sorted({s for d in stem_docs for s in d})
    index = {s: i for i, s in enumerate(stems)}
    x = np.zeros((len(stems), len(stem_docs)), dtype=np.float64)
    for j, doc in enumerate(stem_docs):
        for s, tf in Counter(doc).items():
            x[index[s], j] = 1.0 + np.log(tf)
    df = np.count_nonzero(x, axis=1)
    idf = np.log(len(stem_docs) / df)
    x *= idf[:, None]
    u, sing, _ = np.linalg.svd(x, full_matrices=False)
    u = u[:, :dim] * np.sqrt(sing[:dim])
    # SVD signs are arbitrary: fix each component's sign so the output is reproducible.
    signs = np.sign(u[np.abs(u).argmax(axis=0), np.arange(u.shape[1])])
    u *= np.where(signs == 0, 1.0, signs)
    norms = np.linalg.norm(u, axis=1, keepdims=True)
    return stems, u / np.where(norms > 0, norms, 1.0), idf


def _tokenizer(vocab: dict[str, int]):
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel
    tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFC(), normalizers.Lowercase()]
        + [normalizers.Replace(a, b) for a, b in ACCENT_FOLDS])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return tok


def train(passages: Sequence[Passage], hooks: Sequence[Hook], out_dir: Path,
          dim: int = DIM, name: str = NAME) -> str:
    """Train the vectors and write config.json, model.safetensors and tokenizer.json."""
    from safetensors.numpy import save

    docs = _documents(passages, hooks)
    stem_docs = [[stem(w) for w in d] for d in docs]
    stems, vecs, idf = _lsa(stem_docs, dim)
    weight = idf / idf.max()
    row = {s: i for i, s in enumerate(stems)}
    surface = sorted({w for d in docs for w in d} | set(stems))
    surface = [w for w in surface if w not in STOP_WORDS and stem(w) in row]
    vocab = {t: i for i, t in enumerate(SPECIALS + tuple(surface))}
    table = np.zeros((len(vocab), vecs.shape[1]), dtype=np.float32)
    for w in surface:
        r = row[stem(w)] if w not in row or stem(w) == w else row[w]
        table[vocab[w]] = vecs[r] * weight[r]
    out_dir = Path(out_dir)
    write_bytes(out_dir / "model.safetensors", save({"embeddings": table.astype(np.float16)}))
    write_text(out_dir / "tokenizer.json", _tokenizer(vocab).to_str())
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "normalize": True,
              "hidden_dim": int(table.shape[1]), "max_length": None,
              "citavial_name": name, "citavial_stem_fallback": True,
              "citavial_training": {"method": "LSA (log-tf·idf stem×passage, truncated SVD)",
                                    "passages": len(passages), "hooks": len(hooks),
                                    "stems": len(stems), "tokens": len(vocab)}}
    write_text(out_dir / "config.json", json.dumps(config, indent=2, sort_keys=True) + "\n")
    return (f"trained {name}: {len(vocab)} tokens ({len(stems)} stems) × {table.shape[1]} "
            f"from {len(passages)} passages + {len(hooks)} hook questions into {out_dir}")


def main(argv: list[str] | None = None) -> int:
    from citavial.build.index.collect import collect
    from citavial.build.index.hooks import load_hooks
    from citavial.build.ingest import load_regulation
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=paths.CORPUS)
    p.add_argument("--as-of", type=date.fromisoformat, default=date(2026, 11, 29))
    p.add_argument("--hooks", type=Path, nargs="+", default=list(DEV_CLEAN_HOOKS),
                   help="hook files (default: the dev-clean ones: the model also serves "
                        "measurements on the dev split)")
    p.add_argument("--out", type=Path, default=paths.EMBEDDINGS / NAME)
    p.add_argument("--dim", type=int, default=DIM)
    args = p.parse_args(argv)
    passages = collect(load_regulation(args.corpus, args.as_of))
    hooks, _ = load_hooks(args.hooks, {q.ref for q in passages})
    print(train(passages, hooks, args.out, dim=args.dim, name=args.out.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
