"""Prompt files (prompts/*.md): frontmatter + named sections; no prompt text lives in code.

Format::

    ---
    id: answer-completion          # required
    version: 3                     # required, an integer
    model: gemma-3-270m-q4_k_m.gguf  # the model it was written and measured for
    mode: completion               # "completion" (base model, few-shot) or "chat" (instruct)
    max_tokens: 96
    stop: ["\\n\\n", "Pregunta:"]  # JSON values are decoded
    passage: "[{n}] {label}: {text}"
    passage_chars: 480             # a passage longer than this is cut at a word, with "…"
    prefill: "[[REF:"              # optional: the request ends with the start of the answer
    slots: before                  # optional: slots open their sentence ("before") or close it
    passages: 1                    # optional: how many retrieved passages the prompt shows
    max_sentences: 1               # optional: generation stops when a further sentence starts
    ---
    @@ prefix                      # completion: the fixed few-shot prefix (KV-cached)
    …
    @@ request                     # completion: {passages} and {question} are filled in
    …

A chat prompt has ``@@ system`` (fixed, cached) and ``@@ user`` (the request) instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from citavial.build import paths
from citavial.build.errors import BuildError

PROMPTS_DIR = paths.PROMPTS
DEFAULT_PROMPTS = {"completion": "answer-completion.md", "chat": "answer-chat.md"}
_SECTIONS = {"completion": ("prefix", "request"), "chat": ("system", "user")}
_REQUIRED = ("id", "version", "model", "mode", "max_tokens", "stop", "passage", "passage_chars")


@dataclass(frozen=True)
class Prompt:
    id: str
    version: int
    model: str
    mode: str
    max_tokens: int
    stop: tuple[str, ...]
    passage: str          # format of one numbered passage: {n}, {label}, {text}
    passage_chars: int
    prefill: str          # the answer's first characters, already in the request
    slots: str            # "before": a slot opens its sentence; "after": it closes it
    passages: int         # how many retrieved passages are numbered in the prompt
    max_sentences: int    # 0 = no limit
    fixed: str            # the cached part: few-shot prefix or system message
    request: str          # the per-question part: {passages}, {question}
    path: str

    def __repr__(self) -> str:
        return f"Prompt({self.id} v{self.version}, {self.mode})"


def load_prompt(path: Path) -> Prompt:
    path = Path(path)
    fix = "see the format in worker/lead/prompts.py"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BuildError(str(path), f"cannot read the prompt ({err})", fix) from None
    meta, body = _split_frontmatter(path, text, fix)
    for key in _REQUIRED:
        if key not in meta:
            raise BuildError(f"{path}: frontmatter", f"has no {key!r}", fix)
    mode = meta["mode"]
    if mode not in _SECTIONS:
        raise BuildError(f"{path}: mode", f"is {mode!r}, expected 'completion' or 'chat'", fix)
    sections = _sections(path, body, fix)
    fixed_name, request_name = _SECTIONS[mode]
    for name in (fixed_name, request_name):
        if name not in sections:
            raise BuildError(str(path), f"has no '@@ {name}' section (mode {mode})", fix)
    request = sections[request_name].rstrip("\n")
    for field in ("{passages}", "{question}"):
        if field not in request:
            raise BuildError(f"{path}: @@ {request_name}", f"does not contain {field}", fix)
    if not isinstance(meta["version"], int) or not isinstance(meta["stop"], list):
        raise BuildError(f"{path}: frontmatter", "version must be an integer and stop a JSON "
                         "list", fix)
    prefill, slots = str(meta.get("prefill", "")), str(meta.get("slots", "after"))
    if not request.endswith(prefill) or slots not in ("before", "after"):
        raise BuildError(f"{path}: prefill/slots", f"the request must end with the prefill "
                         f"{prefill!r} and slots be 'before' or 'after' (got {slots!r})", fix)
    fixed = sections[fixed_name].strip("\n")
    if mode == "completion":
        fixed += "\n\n"   # the request starts a new example, exactly like the few-shot ones
    return Prompt(id=str(meta["id"]), version=meta["version"], model=str(meta["model"]),
                  mode=mode, max_tokens=int(meta["max_tokens"]), stop=tuple(meta["stop"]),
                  passage=str(meta["passage"]), passage_chars=int(meta["passage_chars"]),
                  prefill=prefill, slots=slots, passages=int(meta.get("passages", 4)),
                  max_sentences=int(meta.get("max_sentences", 0)), fixed=fixed, request=request, path=str(path))


def render_request(prompt: Prompt, passages: list[tuple[int, str, str]], question: str) -> str:
    """The per-question text: numbered passages (n, label, text) and the question."""
    lines = [prompt.passage.format(n=n, label=label, text=shorten(text, prompt.passage_chars))
             for n, label, text in passages]
    return prompt.request.format(passages="\n".join(lines), question=" ".join(question.split()))


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit] + "…"


def _split_frontmatter(path: Path, text: str, fix: str) -> tuple[dict, str]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [l.strip() for l in lines[1:]]:
        raise BuildError(str(path), "does not start with a '---' frontmatter block", fix)
    end = 1 + [l.strip() for l in lines[1:]].index("---")
    meta: dict = {}
    for n, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise BuildError(f"{path}:{n}", f"{line!r} is not 'key: value'", fix)
        value = value.split("  #", 1)[0].strip()
        try:
            meta[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            meta[key.strip()] = value
    return meta, "\n".join(lines[end + 1:])


def _sections(path: Path, body: str, fix: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.split("\n"):
        if line.startswith("@@ "):
            name = line[3:].strip()
            if name in sections:
                raise BuildError(str(path), f"section '@@ {name}' appears twice", fix)
            current = sections.setdefault(name, [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in sections.items()}
