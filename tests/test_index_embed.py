"""The bundled embedding model: model2vec loads it, our reader encodes as StaticModel does, and
the trainer reproduces it byte for byte."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from citavial.build.index.embed import DEFAULT_MODEL, Embedder, load_embedder

TEXTS = ["velocidad máxima de los turismos en autopista", "luces de cruce en túneles",
         "peatones en pasos de peatones", "zzzz qqqq"]


def test_model2vec_loads_the_bundled_model():
    from model2vec import StaticModel
    m = StaticModel.from_pretrained(DEFAULT_MODEL, force_download=False)
    assert m.dim == 128 and len(m.tokens) > 5000


def test_reader_encodes_like_static_model_on_known_words():
    from model2vec import StaticModel
    m = StaticModel.from_pretrained(DEFAULT_MODEL, force_download=False)
    ours = load_embedder().encode(TEXTS)
    theirs = np.asarray(m.encode(TEXTS, normalize=True), dtype=np.float32)
    assert np.allclose(ours, theirs, atol=1e-3)
    assert not ours[-1].any()    # no known word: a zero vector, not NaN


def test_stem_fallback_reaches_unseen_inflections():
    e = load_embedder()
    assert "aparcaremos" not in e.vocab and "estacionaremos" not in e.vocab
    # Every surface form carries its stem's vector, so the fallback lands on the same point.
    v = e.encode(["aparcaremos", "aparcar", "estacionaremos", "estacionar"])
    assert v[0].any() and np.allclose(v[0], v[1]) and np.allclose(v[2], v[3])


def test_texts_of_one_length_are_averaged_as_one_text_alone():
    """embed._means averages the texts with the same number of tokens in one array operation:
    the very float32 bits of each text's own ``matrix[ids].mean(axis=0)`` (the index files and
    the build cache's vectors are the same bytes as before it)."""
    from citavial.build.index.embed import _means
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((500, 16)).astype(np.float32)
    ids = [list(rng.integers(0, 500, n)) for n in [0, 1, 2, 3, 8, 9, 17, 130, 300]
           for _ in range(3)]
    got = _means(matrix, ids)
    for row, tokens in enumerate(ids):
        want = matrix[tokens].mean(axis=0) if tokens else np.zeros(16, np.float32)
        assert got[row].tobytes() == want.tobytes(), (row, len(tokens))


def test_word_ids_read_the_vocabulary_then_the_stem():
    """token_ids' memo of words gives what a lookup of each word (else its stem) gives."""
    from citavial.build.index.analyze import stem, words
    e = load_embedder()
    for text in [*TEXTS, "Aparcaremos el coche; LUCES de cruce", "a y o la de"]:
        want = [e.vocab.get(w, e.vocab.get(stem(w))) for w in words(text)]
        assert e.token_ids(text) == [i for i in want if i is not None]
        assert e.token_ids(text) == e.token_ids(text)   # memo hit: same ids


def test_student_words_land_near_regulation_words():
    """The point of training on hooks paired with passages."""
    e = load_embedder()
    v = e.encode(["moto", "motocicleta", "rotonda", "glorieta", "semáforo"])
    assert v[0] @ v[1] > 0.5 and v[2] @ v[3] > 0.5
    assert v[0] @ v[1] > v[0] @ v[4]


def test_plain_model2vec_folder_is_read_with_its_tokenizer(tmp_path):
    """A model without our stem fallback (e.g. a potion model) goes through its tokenizer."""
    import json
    import shutil
    folder = tmp_path / "plain"
    shutil.copytree(DEFAULT_MODEL, folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg.pop("citavial_stem_fallback")
    (folder / "config.json").write_text(json.dumps(cfg))
    plain = Embedder(folder)
    assert not plain.stem_fallback
    assert np.allclose(plain.encode(TEXTS[:1]), load_embedder().encode(TEXTS[:1]), atol=1e-3)


@pytest.mark.slow
def test_trainer_reproduces_the_bundled_model(tmp_path):
    from citavial.build.index.make.train import main
    assert main(["--out", str(tmp_path / "citavial-static-v1")]) == 0
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        a = hashlib.sha256((tmp_path / "citavial-static-v1" / name).read_bytes()).hexdigest()
        b = hashlib.sha256((DEFAULT_MODEL / name).read_bytes()).hexdigest()
        assert a == b, name
