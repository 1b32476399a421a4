#!/usr/bin/env python3
"""Validate a citavial golden evaluation set (stdlib only).

Usage:
    python golden/validate.py golden/golden-v1.jsonl /tmp/citavial-passages.jsonl
    python golden/validate.py golden/golden-v2.jsonl PASSAGES --base golden/golden-v1.jsonl
    python golden/validate.py GOLDEN PASSAGES --renames corpus/refs-renamed.json   (the default)

Checks (any failure -> exit status 1):
  * every non-empty line is a JSON object; no blank lines inside the file
  * required keys present, no unknown keys, correct types
  * ids are unique and look like "g0001"
  * kind is "positive" or "negative"
  * positives: 1-3 distinct expected refs, all present in the passages file
    (an old ref of corpus/refs-renamed.json counts as its new ref: published
    lines are never edited), topic from the fixed topic list, no "negative" key
  * negatives: expected == [], a valid "negative" reason, a "note" for
    other_law near misses
  * at least 25 % negatives, plus the coverage minimums of the set
  * no near-duplicate questions (normalized token Jaccard >= 0.8)
  * with --base: every line of the base file is present, byte-identical
    after JSON normalisation (published lines are never edited)

Prints counts (total, positives, negatives by reason, annex positives,
distinct units, per-topic counts).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

RENAMES = Path(__file__).resolve().parent.parent / "corpus" / "refs-renamed.json"

POSITIVE_TOPICS = {
    "velocidad",
    "adelantamientos",
    "prioridad",
    "luces",
    "parada-estacionamiento",
    "senales-marcas",
    "agentes-semaforos",
    "autopistas-autovias",
    "alcohol-drogas",
    "cinturon-casco-movil",
    "transporte-personas-carga",
    "normas-generales",
    "circulacion-urbana",
    "ciclistas-peatones",
    "vehiculos-especiales",
}
NEGATIVE_TOPICS = {"otra-norma", "fuera-de-dominio", "no-regulado"} | POSITIVE_TOPICS
NEGATIVE_REASONS = {"other_law", "out_of_domain", "not_in_regulation"}
REQUIRED_KEYS = {"id", "question", "expected", "topic", "kind"}
OPTIONAL_KEYS = {"negative", "note", "answer", "style"}
STYLES = {"plain", "stem", "situational", "options", "yesno"}
ID_RE = re.compile(r"^g\d{4,}$")

# Coverage minimums of the golden set (v1 targets; later versions include v1,
# so they keep holding).
MIN_TOTAL = 260
MIN_NEGATIVE_RATIO = 0.25
MIN_BY_REASON = {"other_law": 45, "out_of_domain": 15, "not_in_regulation": 10}
MIN_ANNEX_POSITIVES = 40
MIN_DISTINCT_UNITS = 90
MAX_EXPECTED = 3
DUPLICATE_JACCARD = 0.8

# Function words ignored by the near-duplicate check, so that two questions
# asking the same thing with different filler words are still caught.
STOPWORDS = {
    "a", "al", "algo", "algun", "alguna", "alguno", "ante", "como", "con",
    "cual", "cuales", "cuando", "de", "del", "donde", "el", "ella", "en",
    "era", "es", "esta", "este", "esto", "ha", "hay", "la", "las", "le",
    "les", "lo", "los", "me", "mi", "mis", "muy", "ni", "no", "o", "para",
    "pero", "por", "que", "se", "si", "sin", "sobre", "su", "sus", "te",
    "tu", "un", "una", "unas", "uno", "unos", "y", "ya", "yo",
}


def normalize_tokens(text: str) -> frozenset[str]:
    """Lowercase, strip accents and punctuation, drop stopwords."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    no_accents = "".join(c for c in decomposed if not unicodedata.combining(c))
    tokens = re.findall(r"[a-z0-9]+", no_accents)
    return frozenset(t for t in tokens if t not in STOPWORDS)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def load_passages(path: str) -> dict[str, str]:
    """Return {ref: unit} for every passage in the passages file (JSONL with ref and unit), or
    in a built site's dist/allowlist.json (the unit is then the entry's page)."""
    refs: dict[str, str] = {}
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as fh:
            return {e["ref"]: e["page"] for e in json.load(fh)["entries"]}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
                refs[obj["ref"]] = obj["unit"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                sys.exit(f"passages file {path}:{lineno}: unreadable ({exc})")
    return refs


def load_renames(path: str | Path = RENAMES) -> dict[str, str]:
    """{old ref: current ref} from a citavial-ref-renames/1 file (chains followed); {} if the
    file does not exist. The build reads the same file (citavial.build.renames)."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        sys.exit(f"renames file {path}: unreadable ({exc})")
    if not isinstance(doc, dict) or doc.get("schema") != "citavial-ref-renames/1":
        sys.exit(f"renames file {path}: not a citavial-ref-renames/1 document")
    step = {old: entry["new"] for old, entry in doc["renames"].items()}
    out = {}
    for old in step:
        new, seen = step[old], {old}
        while new in step and new not in seen:
            seen.add(new)
            new = step[new]
        out[old] = new
    return out


def is_annex(unit: str) -> bool:
    return unit.split("#", 1)[-1].startswith("anexo")


def load_lines(path: str, errors: list[str]) -> list[tuple[int, dict]]:
    records: list[tuple[int, dict]] = []
    with open(path, encoding="utf-8") as fh:
        raw_lines = fh.read().split("\n")
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()  # trailing newline
    for lineno, line in enumerate(raw_lines, 1):
        if not line.strip():
            errors.append(f"line {lineno}: blank line")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {lineno}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            errors.append(f"line {lineno}: not a JSON object")
            continue
        records.append((lineno, obj))
    return records


def check_record(lineno: int, obj: dict, refs: dict[str, str], errors: list[str],
                 renames: dict[str, str] | None = None) -> bool:
    """Validate one record; return True if it is structurally usable. An expected ref is
    looked up under its current name (``renames``)."""
    where = f"line {lineno} ({obj.get('id', '?')})"
    missing = REQUIRED_KEYS - obj.keys()
    if missing:
        errors.append(f"{where}: missing keys {sorted(missing)}")
        return False
    unknown = obj.keys() - REQUIRED_KEYS - OPTIONAL_KEYS
    if unknown:
        errors.append(f"{where}: unknown keys {sorted(unknown)}")
    if not isinstance(obj["id"], str) or not ID_RE.match(obj["id"]):
        errors.append(f"{where}: bad id {obj['id']!r} (expected like 'g0001')")
    if not isinstance(obj["question"], str) or not obj["question"].strip():
        errors.append(f"{where}: empty question")
        return False
    if not isinstance(obj["expected"], list) or not all(isinstance(r, str) for r in obj["expected"]):
        errors.append(f"{where}: expected must be a list of strings")
        return False
    if not isinstance(obj["topic"], str):
        errors.append(f"{where}: topic must be a string")

    kind = obj["kind"]
    if kind == "positive":
        exp = obj["expected"]
        if not 1 <= len(exp) <= MAX_EXPECTED:
            errors.append(f"{where}: positive needs 1-{MAX_EXPECTED} expected refs, has {len(exp)}")
        if len(set(exp)) != len(exp):
            errors.append(f"{where}: duplicate refs in expected")
        for ref in exp:
            current = (renames or {}).get(ref, ref)
            if current not in refs:
                renamed = f" (renamed {current})" if current != ref else ""
                errors.append(f"{where}: expected ref not in passages file: {ref}{renamed}")
        if "negative" in obj:
            errors.append(f"{where}: positive must not carry a 'negative' reason")
        if obj["topic"] not in POSITIVE_TOPICS:
            errors.append(f"{where}: unknown topic {obj['topic']!r}")
    elif kind == "negative":
        if obj["expected"] != []:
            errors.append(f"{where}: negative must have expected == []")
        reason = obj.get("negative")
        if reason not in NEGATIVE_REASONS:
            errors.append(f"{where}: negative reason must be one of {sorted(NEGATIVE_REASONS)}, got {reason!r}")
        if reason == "other_law":
            note = obj.get("note")
            if not isinstance(note, str) or not note.strip():
                errors.append(f"{where}: other_law negative needs a 'note' naming the other law")
        if obj["topic"] not in NEGATIVE_TOPICS:
            errors.append(f"{where}: unknown topic {obj['topic']!r}")
    else:
        errors.append(f"{where}: kind must be 'positive' or 'negative', got {kind!r}")
        return False
    if "style" in obj and obj["style"] not in STYLES:
        errors.append(f"{where}: style must be one of {sorted(STYLES)}, got {obj['style']!r}")
    if "answer" in obj and not isinstance(obj["answer"], str):
        errors.append(f"{where}: answer must be a string")
    if "note" in obj and not isinstance(obj["note"], str):
        errors.append(f"{where}: note must be a string")
    return True


def check_base(base_path: str, records: list[tuple[int, dict]], errors: list[str]) -> None:
    """Append-only rule: every published line of the base file is unchanged."""
    base_errors: list[str] = []
    base = load_lines(base_path, base_errors)
    errors.extend(f"base {e}" for e in base_errors)
    current = {obj.get("id"): obj for _, obj in records}
    for lineno, obj in base:
        bid = obj.get("id")
        if bid not in current:
            errors.append(f"base line {lineno}: id {bid} missing from new file")
        elif current[bid] != obj:
            errors.append(f"base line {lineno}: id {bid} was edited (published lines are immutable)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("golden", help="golden JSONL file")
    parser.add_argument("passages", help="passages JSONL file (source of truth for refs)")
    parser.add_argument("--base", help="previous published golden file that must be included unchanged")
    parser.add_argument("--renames", default=str(RENAMES),
                        help="old ref -> new ref table (default: corpus/refs-renamed.json)")
    args = parser.parse_args(argv)

    refs = load_passages(args.passages)
    renames = load_renames(args.renames)
    errors: list[str] = []
    records = load_lines(args.golden, errors)

    seen_ids: dict[str, int] = {}
    valid: list[tuple[int, dict]] = []
    for lineno, obj in records:
        oid = obj.get("id")
        if isinstance(oid, str):
            if oid in seen_ids:
                errors.append(f"line {lineno}: duplicate id {oid} (first at line {seen_ids[oid]})")
            else:
                seen_ids[oid] = lineno
        if check_record(lineno, obj, refs, errors, renames):
            valid.append((lineno, obj))

    # Near-duplicate questions.
    token_sets = [(lineno, obj["id"], normalize_tokens(obj["question"])) for lineno, obj in valid]
    for (l1, i1, t1), (l2, i2, t2) in itertools.combinations(token_sets, 2):
        score = jaccard(t1, t2)
        if score >= DUPLICATE_JACCARD:
            errors.append(f"near-duplicate questions {i1} (line {l1}) and {i2} (line {l2}): Jaccard {score:.2f}")

    if args.base:
        check_base(args.base, records, errors)
        base_ids = {o.get("id") for _, o in load_lines(args.base, [])}
        for lineno, obj in valid:   # lines added after the base carry a style and an answer
            if obj["id"] in base_ids:
                continue
            if "style" not in obj:
                errors.append(f"line {lineno} ({obj['id']}): new lines need a 'style'")
            if obj["kind"] == "positive" and not str(obj.get("answer", "")).strip():
                errors.append(f"line {lineno} ({obj['id']}): new positives need an 'answer'")

    # Counts.
    positives = [o for _, o in valid if o["kind"] == "positive"]
    negatives = [o for _, o in valid if o["kind"] == "negative"]
    reasons = Counter(o.get("negative") for o in negatives)
    expected = {o["id"]: [renames.get(r, r) for r in o["expected"]] for o in positives}
    units = {refs[r] for o in positives for r in expected[o["id"]] if r in refs}
    annex_pos = [o for o in positives if any(is_annex(refs.get(r, "")) for r in expected[o["id"]])]
    topics = Counter(o["topic"] for o in positives)
    total = len(records)
    ratio = len(negatives) / total if total else 0.0

    if total < MIN_TOTAL:
        errors.append(f"only {total} lines, need at least {MIN_TOTAL}")
    if ratio < MIN_NEGATIVE_RATIO:
        errors.append(f"negatives are {ratio:.1%} of lines, need at least {MIN_NEGATIVE_RATIO:.0%}")
    for reason, minimum in MIN_BY_REASON.items():
        if reasons.get(reason, 0) < minimum:
            errors.append(f"only {reasons.get(reason, 0)} '{reason}' negatives, need at least {minimum}")
    if len(annex_pos) < MIN_ANNEX_POSITIVES:
        errors.append(f"only {len(annex_pos)} annex positives, need at least {MIN_ANNEX_POSITIVES}")
    if len(units) < MIN_DISTINCT_UNITS:
        errors.append(f"only {len(units)} distinct units in expected refs, need at least {MIN_DISTINCT_UNITS}")

    print(f"file:               {args.golden}")
    print(f"total lines:        {total}")
    print(f"positives:          {len(positives)}")
    print(f"negatives:          {len(negatives)} ({ratio:.1%})")
    for reason in sorted(NEGATIVE_REASONS):
        print(f"  {reason + ':':<20}{reasons.get(reason, 0)}")
    print(f"annex positives:    {len(annex_pos)}")
    print(f"distinct units:     {len(units)}")
    print(f"distinct refs:      {len({r for rs in expected.values() for r in rs})}")
    renamed = sum(r in renames for rs in (o["expected"] for o in positives) for r in rs)
    print(f"renamed refs read:  {renamed} (old names mapped by {Path(args.renames).name})")
    styles = Counter(o.get("style", "plain") for _, o in valid)
    print("lines by style:     " + ", ".join(f"{k} {v}" for k, v in sorted(styles.items())))
    print("positives by topic:")
    for topic, n in sorted(topics.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {topic + ':':<26}{n}")

    if errors:
        print(f"\nFAILED: {len(errors)} error(s)")
        for err in errors:
            print(f"  - {err}")
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
