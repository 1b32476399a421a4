#!/usr/bin/env python3
"""Validate a question-hooks file against the citable passages.

Usage:
    python corpus/hooks/validate.py corpus/hooks/hooks-v1.jsonl /tmp/citavial-passages.jsonl
    python corpus/hooks/validate.py HOOKS PASSAGES --allow-uncovered
    python corpus/hooks/validate.py corpus/hooks/hooks-v6.jsonl dist/allowlist.json \
        --require-coverage none --golden golden/golden-v2.jsonl --splits test,dev

Checks (stdlib only):
  * every line is a JSON object {"ref": str, "questions": [str, ...]}
  * every ref exists in the passages file, and no ref appears on two lines;
    an old ref of corpus/refs-renamed.json counts as its new ref (a published
    hooks file is never edited; the build maps it the same way)
  * questions are non-empty strings; each ends with "?", is an exam stem with
    "..." for the blank, or is a short query (at most SHORT_QUERY_MAX_WORDS words)
  * no duplicate questions in the whole file (compared case-, accent- and
    punctuation-insensitively)
  * coverage, per norm (the ref's prefix before "#"): units with a hooked
    passage and passages hooked. Only the norms named by --require-coverage
    (default: RD-1428/2003, the one norm every version up to v5 covers whole)
    must have a hook in every unit — their uncovered units are listed and are an
    error unless --allow-uncovered. The other norms (RDL-6/2015, RD-818/2009,
    RD-2822/1998: hooks-v6 onwards) are hooked where a student would ask, not
    unit by unit, so their coverage is reported and never required.
    `--require-coverage none` requires no norm (a version for other norms only).
  * with --golden FILE: decontamination — no hook question is within token
    Jaccard 0.5 (after golden/validate.py's folding) of any question of the
    golden set's sealed `test` split (its stem alone or with its options);
    with --splits test,dev, of the dev split's too (hooks-v3 onwards, so that
    figures measured on dev are not flattered by hooks written like its
    questions).
    The split rule is citavial.build.golden.split_of, so this check runs with
    the project's Python (.venv/bin/python).
Passages may be a passages JSONL file or a built site's dist/allowlist.json.
Exits 1 if any error was found, 0 otherwise.
"""
import argparse
import functools
import json
import os
import re
import sys
import unicodedata
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
RENAMES = os.path.join(HERE, "..", "refs-renamed.json")

SHORT_QUERY_MAX_WORDS = 8
DECONTAMINATION_JACCARD = 0.5


def norm(q):
    q = unicodedata.normalize("NFKD", q.lower())
    q = "".join(c for c in q if not unicodedata.combining(c))
    q = re.sub(r"[^\w\s]", " ", q)
    return " ".join(q.split())


# The norm whose every unit a hooks version covers (v1-v3 whole, v4/v5 with them); the other
# norms' passages are hooked where students ask (hooks-v6), so their coverage is only reported.
FULLY_HOOKED = ("RD-1428/2003",)


def norm_of(ref):
    """The norm of a ref: its prefix before "#" ("RDL-6/2015#anexoII.r10" -> "RDL-6/2015")."""
    return ref.split("#", 1)[0]


def load_passages(path):
    """ref -> {"ref", "unit"} of every citable passage, in file order, of every norm."""
    passages = OrderedDict()
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            for e in json.load(f)["entries"]:
                passages[e["ref"]] = {"ref": e["ref"], "unit": e["page"]}
        return passages
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            obj = json.loads(line)
            passages[obj["ref"]] = obj
    return passages


@functools.lru_cache(maxsize=None)
def _golden_validate():
    """golden/validate.py: one folding rule, one renames reader. Loaded by path, once: both
    files are named validate.py, so a plain import could find this one."""
    import importlib.util
    path = os.path.join(HERE, "..", "..", "golden", "validate.py")
    spec = importlib.util.spec_from_file_location("golden_validate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def golden_questions(golden_path, splits=("test",)):
    """(id, folded tokens) of each golden question of ``splits``: whole and stem alone."""
    gv = _golden_validate()
    jaccard, normalize_tokens = gv.jaccard, gv.normalize_tokens

    from citavial.build.golden import split_of
    found = []
    with open(golden_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                g = json.loads(line)
                if split_of(g["id"]) in splits:
                    q = g["question"]
                    found += [(g["id"], normalize_tokens(q)),
                              (g["id"], normalize_tokens(q.split("\n")[0]))]
    return found, jaccard, normalize_tokens


def token_index(golden):
    """{token: positions in ``golden`` of the questions holding it}, for ``nearest``."""
    index = {}
    for i, (_, tokens) in enumerate(golden):
        for t in tokens:
            index.setdefault(t, []).append(i)
    return index


def nearest(question, golden, jaccard, normalize_tokens, by_token=None):
    """(largest Jaccard, golden id) of ``question`` against ``golden``. With ``by_token``
    (token_index(golden)) only the golden questions sharing a token are scored: every other one
    is at Jaccard 0, so any score above 0 and its id are the same as a full scan's (only the id
    given with a 0.0 may differ); about 10x fewer comparisons over the golden set."""
    t = normalize_tokens(question)
    if by_token is not None and t:
        near = sorted({i for tok in t for i in by_token.get(tok, ())})
        golden = [golden[i] for i in near]
    return max(((jaccard(t, g), gid) for gid, g in golden), default=(0.0, ""))


def contamination(hooks_path, golden_path, splits=("test",)):
    """Errors for hook questions within DECONTAMINATION_JACCARD of a question of ``splits``."""
    tests, jaccard, normalize_tokens = golden_questions(golden_path, splits)
    by_token = token_index(tests)
    errors = []
    with open(hooks_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            for q in json.loads(line).get("questions", []):
                near = nearest(q, tests, jaccard, normalize_tokens, by_token)
                if near[0] >= DECONTAMINATION_JACCARD:
                    errors.append(f"line {n}: hook {q!r} is within Jaccard {near[0]:.2f} of "
                                  f"golden question {near[1]} (remove the hook)")
    print(f"decontamination: {len(tests) // 2} golden questions ({'+'.join(splits)}) checked")
    return errors


def check_lines(hooks_path, passages, renames):
    """(errors, refs seen -> line, counts) of the hooks file's lines: format, refs, questions."""
    errors, seen_refs, seen_q = [], {}, {}
    n_lines = n_questions = n_renamed = 0
    with open(hooks_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            n_lines += 1
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {n}: invalid JSON ({e})")
                continue
            if not isinstance(obj, dict):
                errors.append(f"line {n}: not a JSON object")
                continue
            ref, qs = obj.get("ref"), obj.get("questions")
            if not isinstance(ref, str) or not ref:
                errors.append(f"line {n}: missing or empty 'ref'")
                continue
            n_renamed += ref in renames
            ref = renames.get(ref, ref)
            if ref not in passages:
                errors.append(f"line {n}: unknown ref {ref!r}")
            if ref in seen_refs:
                errors.append(f"line {n}: ref {ref!r} already on line {seen_refs[ref]}")
            seen_refs.setdefault(ref, n)
            if not isinstance(qs, list) or not qs:
                errors.append(f"line {n}: 'questions' must be a non-empty list")
                continue
            n_questions += sum(isinstance(q, str) and bool(q.strip()) for q in qs)
            errors.extend(check_questions(n, qs, seen_q))
    return errors, seen_refs, (n_lines, n_questions, n_renamed)


def check_questions(n, qs, seen_q):
    """Errors of line ``n``'s questions; records each in ``seen_q`` (folded -> first line)."""
    errors = []
    for q in qs:
        if not isinstance(q, str) or not q.strip():
            errors.append(f"line {n}: empty or non-string question")
            continue
        q = q.strip()
        if (not q.endswith("?") and "..." not in q and "…" not in q
                and len(q.split()) > SHORT_QUERY_MAX_WORDS):
            errors.append(f"line {n}: not a question nor a short query: {q!r}")
        k = norm(q)
        if k in seen_q:
            errors.append(f"line {n}: duplicate question {q!r} (first on line {seen_q[k]})")
        else:
            seen_q[k] = n
    return errors


def parse_required(value, passages):
    """The norms --require-coverage names ("none" for none), each checked to exist."""
    if value.strip().lower() == "none":
        return ()
    required = tuple(v.strip() for v in value.split(",") if v.strip())
    known = sorted({norm_of(r) for r in passages})
    for name in required:
        if name not in known:
            raise ValueError(f"--require-coverage: norm {name!r} has no passage in the passages "
                             f"file (rule: name norms as ref prefixes, one of {', '.join(known)}, "
                             f"or 'none'); fix the value or the passages file")
    return required


def coverage(passages, covered, required):
    """Print coverage per norm; return the uncovered units of the required norms."""
    by_norm = OrderedDict()
    for ref, p in passages.items():
        units = by_norm.setdefault(norm_of(ref), OrderedDict())
        units.setdefault(p.get("unit", ref), []).append(ref)
    units_all = [u for units in by_norm.values() for u in units.values()]
    print(f"units covered: {sum(any(r in covered for r in refs) for refs in units_all)}"
          f"/{len(units_all)}")
    print(f"passages covered: {len(covered)}/{len(passages)}")
    print("coverage by norm:")
    missing = []
    for name, units in by_norm.items():
        bare = [u for u, refs in units.items() if not any(r in covered for r in refs)]
        n_refs = sum(len(refs) for refs in units.values())
        n_hooked = sum(r in covered for refs in units.values() for r in refs)
        rule = "required" if name in required else "reported only"
        print(f"  {name}: units {len(units) - len(bare)}/{len(units)}, "
              f"passages {n_hooked}/{n_refs} ({rule})")
        if name in required:
            missing += bare
    return missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hooks")
    ap.add_argument("passages")
    ap.add_argument("--allow-uncovered", action="store_true",
                    help="report units without hooks but do not fail")
    ap.add_argument("--require-coverage", default=",".join(FULLY_HOOKED),
                    help="comma-separated norms (ref prefixes) whose every unit needs a hook, "
                         "or 'none' (default: %(default)s); other norms' coverage is reported")
    ap.add_argument("--golden", help="golden JSONL file whose test split the hooks must not "
                                     "come near (decontamination)")
    ap.add_argument("--splits", default="test",
                    help="comma-separated golden splits to decontaminate against (default: test)")
    ap.add_argument("--renames", default=RENAMES,
                    help="old ref -> new ref table (default: corpus/refs-renamed.json)")
    args = ap.parse_args(argv)

    renames = _golden_validate().load_renames(args.renames)  # the golden set's reader
    passages = load_passages(args.passages)
    try:
        required = parse_required(args.require_coverage, passages)
    except ValueError as e:
        ap.error(str(e))  # exit 2, as argparse does for any other bad argument
    errors, seen_refs, (n_lines, n_questions, n_renamed) = check_lines(args.hooks, passages,
                                                                       renames)
    if args.golden:
        errors.extend(contamination(args.hooks, args.golden, tuple(args.splits.split(","))))

    print(f"lines: {n_lines}")
    print(f"questions: {n_questions}")
    missing = coverage(passages, {r for r in seen_refs if r in passages}, required)
    print(f"renamed refs read: {n_renamed} (old names mapped by corpus/refs-renamed.json)")
    if missing:
        print(f"units without any hook ({len(missing)}):")
        for u in missing:
            print(f"  {u}")
        if not args.allow_uncovered:
            errors.append(f"{len(missing)} unit(s) without any hook")
    else:
        print("units without any hook: none")
    return report(errors)


def report(errors):
    """Print the errors (at most 200) or OK; the exit code."""
    if errors:
        print(f"ERRORS ({len(errors)}):")
        for e in errors[:200]:
            print(f"  {e}")
        if len(errors) > 200:
            print(f"  ... and {len(errors) - 200} more")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
