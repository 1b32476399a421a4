"""Read an exam bank (JSONL or CSV) for `citavial exam`, and paste its questions as students do.

A bank is a driving school's (or our evaluation's) multiple-choice questions:

* JSONL, one object a line: ``question``, ``options`` (``{"A": …, "B": …}`` or a list of 2–4
  strings), optional ``answer`` (or ``key``: the right letter), ``id``, ``split``, ``group``,
  ``tier``, ``scope_hint`` (a list of strings), ``needs_image`` (true/false); other fields are
  ignored.
* CSV with a header row: ``question``, ``a``, ``b`` [, ``c``, ``d``] and optional ``id``,
  ``answer``, ``split``, ``group``, ``tier``, ``scope_hint`` (values separated by ``;``),
  ``needs_image``.

Every malformed line stops the run before anything is answered: ``BankError`` names the file,
the line, the field, what was found and how to fix it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LETTERS = "abcd"
ONE_LINE, MULTI_LINE = "one-line", "multi-line"
FIX = "fix the line or drop it"
_TRUE, _FALSE = {"true", "1", "yes", "si", "sí", "x"}, {"false", "0", "no", ""}


class BankError(ValueError):
    """A bank that cannot be read: ``file:line: field "f": what; fix``."""

    def __init__(self, path: Path | str, line: int | None, field: str | None, what: str,
                 fix: str = FIX) -> None:
        where = f"{path}:{line}" if line is not None else f"{path}"
        name = f' field "{field}":' if field else ""
        super().__init__(f"{where}:{name} {what}; {fix}")
        self.path, self.line, self.field = str(path), line, field


@dataclass(frozen=True)
class ExamItem:
    id: str
    line: int
    question: str
    options: tuple[tuple[str, str], ...]     # (letter, text), letters lower case, a b c (d)
    key: str | None                          # the right letter, lower case; None: no key
    split: str = ""
    group: str = ""
    tier: str = ""
    scope_hint: tuple[str, ...] = ()
    needs_image: bool = False

    def __repr__(self) -> str:
        return f"ExamItem({self.id}, line {self.line}, key={self.key})"


def paste(item: ExamItem, mode: str = ONE_LINE) -> str:
    """The question as a student pastes it: ``stem a) … b) … c) …`` or stem, then one option
    a line."""
    opts = [f"{letter}) {text}" for letter, text in item.options]
    return "\n".join([item.question] + opts) if mode == MULTI_LINE else " ".join(
        [item.question] + opts)


def load_bank(path: Path) -> list[ExamItem]:
    """Every item of the bank, in file order (raises BankError, OSError)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise BankError(path, None, None, f"is not UTF-8 text (byte {err.start})",
                        "save it as UTF-8") from None
    rows = _csv_rows(path, text) if path.suffix.lower() == ".csv" else _jsonl_rows(path, text)
    items: list[ExamItem] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        item = _item(path, line, row)
        if item.id in seen:
            raise BankError(path, line, "id", f"{item.id!r} was already used on line "
                            f"{seen[item.id]}", "give every question its own id")
        seen[item.id] = line
        items.append(item)
    if not items:
        raise BankError(path, None, None, "holds no questions",
                        "give one JSON object a line, or a CSV with a header row")
    return items


def _jsonl_rows(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as err:
            raise BankError(path, line, None, f"is not JSON ({err.msg} at column {err.colno})"
                            ) from None
        if not isinstance(row, dict):
            raise BankError(path, line, None, f"is a JSON {type(row).__name__}, not an object")
        yield line, row


def _csv_rows(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    reader = csv.reader(text.splitlines(keepends=True))
    header = [h.strip().lower() for h in next(reader, [])]
    for need in ("question", "a", "b"):
        if need not in header:
            raise BankError(path, 1, need, f"the header has no column {need!r} (it has "
                            f"{header})", "name the columns id,question,a,b,c,answer")
    start = reader.line_num + 1
    for cells in reader:
        if any(c.strip() for c in cells):
            if len(cells) != len(header):
                raise BankError(path, start, None, f"has {len(cells)} cells, the header "
                                f"{len(header)}", "quote cells that hold a comma")
            row: dict = dict(zip(header, cells, strict=False))
            opts = [row.pop(x) for x in LETTERS if x in row]
            while opts and not opts[-1].strip():
                opts.pop()   # a bank of 3-option questions may keep an empty "d" column
            row["options"] = opts
            hint = row.get("scope_hint", "")
            row["scope_hint"] = [h.strip() for h in hint.split(";") if h.strip()]
            yield start, row
        start = reader.line_num + 1


def _item(path: Path, line: int, row: dict) -> ExamItem:
    def bad(field: str, what: str, fix: str = FIX) -> BankError:
        return BankError(path, line, field, what, fix)

    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise bad("question", f"expected the question's text, got {question!r}")
    options = _options(row.get("options"), bad)
    key = row.get("answer", row.get("key"))
    if key in (None, ""):
        key = None
    elif not isinstance(key, str) or key.strip().lower() not in [o[0] for o in options]:
        raise bad("answer", f"{key!r} is not one of the options' letters "
                  f"{[o[0] for o in options]}", "give the right option's letter, or none")
    raw_id = row.get("id")
    if raw_id in (None, ""):
        raw_id = f"line-{line}"
    if not isinstance(raw_id, (str, int)) or isinstance(raw_id, bool):
        raise bad("id", f"expected a string, got {raw_id!r}")
    hint = row.get("scope_hint") or []
    if not isinstance(hint, list) or not all(isinstance(h, str) for h in hint):
        raise bad("scope_hint", f"expected a list of strings, got {hint!r}")
    for field in ("split", "group", "tier"):
        if not isinstance(row.get(field, ""), str):
            raise bad(field, f"expected a string, got {row[field]!r}")
    return ExamItem(str(raw_id).strip(), line, " ".join(question.split()), options,
                    key.strip().lower() if key else None, row.get("split", "").strip(),
                    row.get("group", "").strip(), row.get("tier", "").strip(),
                    tuple(sorted({h.strip() for h in hint if h.strip()})),
                    _flag(row.get("needs_image", False), bad))


def _options(value: object, bad) -> tuple[tuple[str, str], ...]:
    if isinstance(value, dict):
        letters = [str(k).strip().lower() for k in value]
        if letters != list(LETTERS[:len(letters)]):
            raise bad("options", f"keys {list(value)} are not A, B, C (, D) in order",
                      'write {"A": "…", "B": "…", "C": "…"}')
        texts = list(value.values())
    elif isinstance(value, list):
        texts = value
    else:
        raise bad("options", f"expected an object or a list, got {type(value).__name__}")
    if not 2 <= len(texts) <= 4:
        raise bad("options", f"expected 2–4 options, got {len(texts)}")
    for letter, text in zip(LETTERS, texts, strict=False):
        if not isinstance(text, str) or not text.strip():
            raise bad("options", f"option {letter.upper()} is {text!r}, not text")
    return tuple((letter, " ".join(t.split())) for letter, t in zip(LETTERS, texts, strict=False))


def _flag(value: object, bad) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise bad("needs_image", f"expected true or false, got {value!r}")
