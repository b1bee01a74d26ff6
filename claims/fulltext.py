"""A search query's words as FalkorDB's fulltext index (RediSearch inside FalkorDB) reads them: never its syntax.

What a lexical match is (the user-visible semantics, docs/architecture.md "Search"):
- A statement is cut into words as the index cuts it: at white space and at every ASCII punctuation mark but `_`
  (so "40,000" is the words 40 and 000, "e-mail" is e and mail). The query is cut the same way here, and only its
  words reach the index: quotes, `|`, `-`, `@`, `*`, `%`, `~`, `:`, parentheses and braces are separators, so a
  query can never be an operator, a negation, a field, a prefix or a wildcard (`*` alone is no words: no match).
- Words match whole, with English stemming ("launches" finds "launch"), never inside another word ("sol" does
  not find "solar"). Case is folded: the index folds ASCII letters only, so a word with accented letters is
  asked in each case of those letters ("école" finds "ÉCOLE"); accents themselves are not folded ("cafe" does
  not find "café").
- The phrase step: every word of the query, in order, next to each other (`(w1 w2 …) => {$slop: 0; $inorder:
  true;}`). The fallback: any of the content words (claims.selectors.search.content_words), those with more first.
"""

from __future__ import annotations

import re
import string
from itertools import combinations, product

# Where the index cuts a statement into words (measured on FalkorDB 4.x: every ASCII punctuation mark but `_`
# and `\`, which escapes there; a backslash is cut here too, so a query never escapes anything), and control
# characters (a NUL cannot even be a query parameter).
SEPARATORS = re.compile("[\\s\x00-\x1f\x7f" + re.escape(string.punctuation.replace("_", "")) + "]+")
# The fallback asks the index for each count of words apart (claims with exactly k of them) up to this many
# content words; past it, each word is asked apart and the claims' counts are summed by the graph (slower).
MAX_TIERED_WORDS = 5
# More words than this in one query are left out (a query is at most afterhack.text.MAX_SEARCH_CHARS long).
MAX_WORDS = 32
# A word with more accented letters than this is asked as typed, lower, upper and capitalized, not in every mix.
MAX_MIXED_LETTERS = 3


def words(query: str) -> list[str]:
    """The query's words as the index cuts them, at most MAX_WORDS of them."""
    return [word for word in SEPARATORS.split(query) if word][:MAX_WORDS]


def term(word: str) -> str:
    """The word as the index may hold it: ASCII letters lower-cased (the index does so), every other letter in
    either case, as a union when there is more than one spelling. `word` holds no separator (see `words`)."""
    mixed = [i for i, letter in enumerate(word) if not letter.isascii() and letter.lower() != letter.upper()]
    base = "".join(letter.lower() if letter.isascii() else letter for letter in word)
    if not mixed:
        return base
    if len(mixed) <= MAX_MIXED_LETTERS:
        spellings = set()
        for cases in product((str.lower, str.upper), repeat=len(mixed)):
            letters = list(base)
            for position, case in zip(mixed, cases, strict=True):
                letters[position] = case(letters[position])
            spellings.add("".join(letters))
    else:
        lower = base.lower()
        upper = "".join(c.upper() if not c.isascii() else c for c in base)
        spellings = {base, lower, upper, upper[:1] + lower[1:]}
    spellings = {spelling for spelling in spellings if spelling and not SEPARATORS.search(spelling)}
    return "(" + "|".join(sorted(spellings)) + ")" if len(spellings) > 1 else base


def phrase_query(query: str) -> str:
    """The fulltext query for the query's words in order, side by side; '' when it has no words."""
    found = words(query)
    if not found:
        return ""
    if len(found) == 1:
        return term(found[0])
    return "(" + " ".join(term(word) for word in found) + ") => { $slop: 0; $inorder: true; }"


def word_terms(content_words: list[str]) -> list[str]:
    """One fulltext query per content word (each word as `term` spells it), for the fallback."""
    return [term(word) for text in content_words for word in words(text)][:MAX_WORDS]


def tiers(terms: list[str]) -> list[tuple[int, str, str]]:
    """For the fallback: (k, a fulltext query for the claims with at least k of the terms, one for those with at
    least k + 1 — "" for all of them), k from all of them down to one: the claims with exactly k are the first's
    less the second's (claims.graph.search._tiered), so the tiers do not overlap and the graph ranks them without
    counting per claim. [] past MAX_TIERED_WORDS terms. (The index's own negation can't be used: FalkorDB 4.22
    ignores `-( … )` of several words, and reads `-3` as a number.)"""
    if not terms or len(terms) > MAX_TIERED_WORDS:
        return []

    def at_least(k: int) -> str:
        return "|".join("(" + " ".join(subset) + ")" for subset in combinations(terms, k))

    return [(k, at_least(k), at_least(k + 1) if k < len(terms) else "") for k in range(len(terms), 0, -1)]
