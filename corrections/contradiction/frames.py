"""A statement reduced once to what the rule compares (`analyse`): its frame, the content words (stemmed) with
filler stripped (is, will be, in, on, planned, moved, now, still...) and each value replaced by its slot ("<date>",
"<quantity:seat>"); a lighter frame that keeps the verbs, for negation; its values; whether it is negated and
whether it is hedged (if, may, might, could, a question...). Names become values only where the sentence makes
them one: after a copula ("the venue is Hall B", "Hall B is the venue"), as who owns, leads, chairs or runs
something ("Ana Costa owns the checklist", "owned by Ana Costa"), and as whom something is assigned or awarded to.
Elsewhere a name is part of the subject ("Acme's quote")."""

from __future__ import annotations

from dataclasses import dataclass

from corrections.contradiction.values import Piece, Value, ValueType, Word, read_values

ARTICLES = {"the", "a", "an"}
AUXILIARIES = {
    "is", "are", "was", "were", "be", "been", "being", "am", "will", "shall", "has", "have", "had", "do", "does", "did",
    "can", "'s", "’s",
}  # fmt: skip
COPULAS = {"is", "are", "was", "were", "remains", "remain", "becomes", "become"}
PREPOSITIONS = {"in", "on", "at", "for", "to", "of", "as", "by", "from", "into", "with", "than"}
ADVERBS = {"now", "still", "currently", "officially", "already", "yet", "also", "then", "just", "actually", "longer"}
# Words that say a value is planned or has moved, not what it is: "planned for June 12", "moved to July".
PLANNING = {
    "planned", "scheduled", "set", "expected", "slated", "targeted", "tentatively", "moved", "move", "moves",
    "rescheduled", "postponed", "pushed", "delayed", "shifted", "changed", "brought", "forward", "back", "updated",
    "revised", "date", "slipped", "slips", "deferred", "happen", "happens", "occur", "occurs",
}  # fmt: skip
# The workspace's own organisation: "we moved the launch to July" is about the launch.
OURSELVES = {"we", "our", "us"}
# Verbs that set a new level when followed by "to"/"from" ("cut to €30k", "raised from 40k to 55k").
CHANGES = {
    "cut", "raised", "increased", "reduced", "decreased", "lowered", "extended", "went", "up", "down", "grew", "rose",
    "fell", "dropped", "bumped", "shortened", "lengthened", "trimmed",
}  # fmt: skip
# Measures that move period by period: a different period is another fact, not a correction.
# (Verbs, not nouns: "the price increase takes effect on 1 January" is one fact.)
TRENDS = {
    "grew", "grow", "grows", "rose", "rise", "rises", "fell", "fall", "falls", "dropped", "drops", "increased",
    "increases", "decreased", "decreases", "declined", "declines", "peaked", "peaks", "dipped", "climbed", "jumped",
    "spiked", "improved", "improves", "worsened", "shrank", "shrinks", "slowed", "slows",
}  # fmt: skip
# Attributive words that do not tell one subject from another ("the product launch" is "the launch").
WEAK = {"product", "project", "overall", "total", "final", "current", "official", "new", "planned", "our"}
PRONOUNS = {
    "we", "our", "us", "it", "its", "they", "their", "them", "this", "that", "these", "those", "he", "she", "his",
    "her", "i", "my", "you", "your", "there", "here",
}  # fmt: skip
NEGATIONS = {"not", "never", "no", "none", "nobody", "nothing", "neither", "nor", "cannot"}
HEDGES = {
    "if", "unless", "whether", "might", "could", "would", "should", "probably", "possibly", "perhaps", "maybe",
    "likely", "unlikely", "considering", "consider", "option", "options", "or", "either", "tbd", "tbc",
    "potentially", "hopefully", "may",
}  # fmt: skip
# Words that deny their base: for the negation check only ("rejected" is "not approved").
ANTONYMS = {
    "rejected": "approv", "rejects": "approv", "reject": "approv", "declined": "accept", "declines": "accept",
    "closed": "open", "unavailable": "availabl", "incomplete": "complet", "unpaid": "pay", "unsigned": "sign",
    "unapproved": "approv", "unresolved": "resolv", "failed": "pass", "disabled": "enabl", "inactive": "activ",
}  # fmt: skip
IRREGULAR = {
    "led": "lead", "ran": "run", "met": "meet", "went": "go", "grew": "grow", "rose": "rise", "fell": "fall",
    "began": "begin", "begun": "begin", "took": "take", "paid": "pay", "sent": "send", "held": "hold", "made": "make",
    "chose": "choose", "chosen": "choose", "won": "win", "sold": "sell", "spent": "spend", "got": "get",
    "gave": "give", "given": "give", "bought": "buy", "left": "leave", "kept": "keep", "built": "build",
    "wrote": "write", "written": "write", "saw": "see", "seen": "see", "told": "tell", "said": "say",
    "found": "find", "children": "child", "people": "person",
}  # fmt: skip
# Who holds a role: the name before these verbs is the value ("Ana Costa owns the checklist")...
AGENT_VERBS = {"owns", "leads", "manages", "heads", "chairs", "runs", "coordinates", "hosts", "sponsors"}
# ...or after these and "by" ("owned by Ana Costa")...
AGENT_PARTICIPLES = {"owned", "led", "managed", "headed", "chaired", "run", "coordinated", "hosted", "sponsored"}
# ...or after these and "to" ("awarded to Northwind").
TO_PARTICIPLES = {"assigned", "awarded", "given", "handed", "outsourced", "transferred"}
# Between a copula and a named complement ("is now Hall C", "has been changed to Hall D", "is in Lisbon").
COMPLEMENT_SKIP = {"now", "still", "currently", "officially", "the", "changed", "switched", "moved", "to", "in", "at"}
# Between a statement's copula and its value ("is planned for", "has been moved to"): the subject is then what the
# value is said of.
SETTING = ARTICLES | AUXILIARIES | ADVERBS | PLANNING | PREPOSITIONS | {"due", "now"}
LIST_WORDS = {"and", "or", "&", ",", "/", "nor"}


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the rule needs of one statement, computed once. `frame` and `light` are sorted tuples (a multiset);
    `slots` pairs each slot with its values in order; `content` counts the frame's words that can name a subject
    (not pronouns, not values)."""

    text: str
    frame: tuple[str, ...]
    light: tuple[str, ...]
    slots: tuple[tuple[str, tuple[Value, ...]], ...]
    negated: bool
    polarity: bool
    hedged: bool
    content: int
    trend: bool
    subject: str
    tense: str = ""


def stem(word: str) -> str:
    """A crude stem, the same for "approve", "approved" and "approves"; enough to compare two statements."""
    word = word.lower().removesuffix("'s").removesuffix("’s").strip("'’")
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = undouble(word[:-3])
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-3] + "y" if word.endswith("ied") else undouble(word[:-2])
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def undouble(word: str) -> str:
    return word[:-1] if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "lsz" else word


def is_negation(word: Word) -> bool:
    return word.lower in NEGATIONS or word.lower.endswith(("n't", "n’t"))


def analyse(statement: str) -> Analysis:
    """The statement reduced to its frames, values, polarity and hedging."""
    pieces = drop_old_values(read_values(statement))
    pieces = name_values(pieces)
    words = [piece for piece in pieces if isinstance(piece, Word)]
    hedged = any(word.lower in HEDGES or word.text == "?" for word in words)
    negated = any(is_negation(word) for word in words)
    frame: list[str] = []
    light: list[str] = []
    polarity = False
    content = 0
    trend = False
    for index, piece in enumerate(pieces):
        if isinstance(piece, Value):
            frame.append(piece.slot)
            light.append(piece.slot)
            continue
        lower = piece.lower
        trend = trend or lower in TRENDS
        if piece.kind == "punct" or piece.kind == "sym":
            continue
        if is_negation(piece):
            polarity = not polarity
            continue
        if lower in ARTICLES or lower in AUXILIARIES or lower in ADVERBS:
            continue
        if lower in WEAK and next_is_content(pieces, index):
            continue
        if lower in PREPOSITIONS:
            # "planned for June" and "moved to July" say the same; "the flight from Berlin" and "to Berlin" do not.
            if not leads_to_value(pieces, index) and not is_passive_by(pieces, index):
                frame.append(lower)
                light.append(lower)
            continue
        if lower in ANTONYMS:
            polarity = not polarity
            light.append(ANTONYMS[lower])
        else:
            light.append(stem(lower))
        if lower in PLANNING or (lower in CHANGES and next_lower(pieces, index) in ("to", "from", "up", "down")):
            continue
        if lower in OURSELVES:
            continue
        stemmed = stem(lower)
        frame.append(stemmed)
        content += lower not in PRONOUNS
    values = [piece for piece in pieces if isinstance(piece, Value)]
    slots: dict[str, list[Value]] = {}
    for value in values:
        slots.setdefault(value.slot, []).append(value)
    return Analysis(
        text=statement, frame=tuple(sorted(frame)), light=tuple(sorted(light)),
        slots=tuple((slot, tuple(found)) for slot, found in sorted(slots.items())), negated=negated,
        polarity=polarity, hedged=hedged, content=content, trend=trend,
        subject=subject_of(pieces), tense=tense_of(pieces),
    )  # fmt: skip


def is_passive_by(pieces: list[Piece], index: int) -> bool:
    """ "approved by the board" is "the board approved": the "by" of a passive says nothing more."""
    piece, previous = pieces[index], pieces[index - 1] if index > 0 else None
    return (
        isinstance(piece, Word) and piece.lower == "by" and isinstance(previous, Word)
        and (previous.lower.endswith("ed") or previous.lower in IRREGULAR or previous.lower in AGENT_PARTICIPLES)
    )  # fmt: skip


def leads_to_value(pieces: list[Piece], index: int) -> bool:
    """Does the preposition at `index` introduce a value (perhaps after "the")?"""
    for piece in pieces[index + 1 : index + 3]:
        if isinstance(piece, Value):
            return True
        if piece.lower not in ARTICLES:
            return False
    return False


def next_is_content(pieces: list[Piece], index: int) -> bool:
    following = pieces[index + 1] if index + 1 < len(pieces) else None
    return (
        isinstance(following, Word) and following.kind == "word" and following.lower not in ARTICLES
        and following.lower not in AUXILIARIES and following.lower not in PREPOSITIONS
    )  # fmt: skip


def next_lower(pieces: list[Piece], index: int) -> str:
    following = pieces[index + 1] if index + 1 < len(pieces) else None
    return following.lower if isinstance(following, Word) else ""


def drop_old_values(pieces: list[Piece]) -> list[Piece]:
    """ "moved from June to July", "raised from 40,000 EUR to 55,000 EUR": the value after "from" is the old one, and
    only the new one is what the statement says now (when a verb of change says so)."""
    if not any(
        isinstance(piece, Word) and (piece.lower in CHANGES or piece.lower in PLANNING or piece.lower == "not")
        for piece in pieces
    ):
        return pieces
    out: list[Piece] = []
    i = 0
    while i < len(pieces):
        window = pieces[i : i + 4]
        if len(window) == 4:
            before, old, to, new = window
            if (
                isinstance(before, Word) and before.lower == "from" and isinstance(to, Word) and to.lower == "to"
                and isinstance(old, Value) and isinstance(new, Value) and old.slot == new.slot
            ):  # fmt: skip
                i += 2  # "from" and the old value go; "to" and the new value stay
                continue
        if len(window) >= 3 and is_denied_old_value(out, window):
            i += 3  # "in July, not June": the comma, "not" and the old value go
            continue
        out.append(pieces[i])
        i += 1
    return out


def is_denied_old_value(out: list[Piece], window: list[Piece]) -> bool:
    """ ", not June" right after "July": the value denied is the old one, and the statement says July."""
    comma, denial, old = window[:3]
    new = out[-1] if out else None
    return (
        isinstance(comma, Word) and comma.text == "," and isinstance(denial, Word) and denial.lower == "not"
        and isinstance(old, Value) and isinstance(new, Value) and old.slot == new.slot
    )  # fmt: skip


def name_runs(pieces: list[Piece]) -> list[tuple[int, int]]:
    """Where the names are: runs of capitalised words, codes ("INC-2041", "eu-west-1") and the numbers of names
    ("Room 4.12"); a run opening the statement counts only if it has two words ("Ana Costa", "Hall B")."""
    runs = []
    i = 0
    while i < len(pieces):
        j = i
        while j < len(pieces) and is_name_piece(pieces, j):
            j += 1
        if j > i:
            if i > 0 or j - i >= 2 or is_role_sentence(pieces, j):
                runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def is_name_piece(pieces: list[Piece], j: int) -> bool:
    piece = pieces[j]
    if not isinstance(piece, Word):
        return False
    if piece.kind == "code":
        return True
    if piece.kind == "num":
        previous = pieces[j - 1] if j > 0 else None
        return isinstance(previous, Word) and previous.kind in ("word", "code") and previous.text[:1].isupper()
    if piece.kind != "word" or not piece.text[:1].isupper() or piece.lower in ARTICLES or piece.lower in PRONOUNS:
        return False
    return not (j == 0 and (piece.lower in NEGATIONS or piece.lower in HEDGES or piece.lower in PREPOSITIONS))


def is_role_sentence(pieces: list[Piece], j: int) -> bool:
    """ "Stripe is the payment provider", "Ana owns the checklist": a one-word name opening such a sentence."""
    following = [piece.lower for piece in pieces[j : j + 2] if isinstance(piece, Word)]
    return bool(following) and (following[0] in AGENT_VERBS or following[:2] in (["is", "the"], ["was", "the"]))


def name_values(pieces: list[Piece]) -> list[Piece]:
    """The pieces with each name that is a value replaced by a name value."""
    out: list[Piece] = []
    done = 0
    for i, j in name_runs(pieces):
        if is_listed(pieces, i, j) or not is_value_position(pieces, i, j):
            continue
        words = [piece for piece in pieces[i:j] if isinstance(piece, Word)]
        text = " ".join(word.text for word in words)
        name = tuple(word.lower.removesuffix("'s").removesuffix("’s") for word in words)
        out += [*pieces[done:i], Value(ValueType.NAME, text, words[0].start, words[-1].end, name=name)]
        done = j
    return out + pieces[done:]


def is_listed(pieces: list[Piece], i: int, j: int) -> bool:
    before = pieces[i - 1] if i > 0 else None
    after = pieces[j] if j < len(pieces) else None
    return any(isinstance(piece, Word) and piece.lower in LIST_WORDS for piece in (before, after)) and not (
        isinstance(after, Word) and after.lower == "," and j + 1 < len(pieces) and not is_name_piece(pieces, j + 1)
        and not (isinstance(before, Word) and before.lower in LIST_WORDS)
    )  # fmt: skip


def lowers(pieces: list[Piece]) -> list[str]:
    return [piece.lower if isinstance(piece, Word) else "<value>" for piece in pieces]


def is_value_position(pieces: list[Piece], i: int, j: int) -> bool:
    """Is the name at pieces[i:j] the value of a role: a copula's complement, the subject of "is the ..." or of
    "owns", the agent after "owned by", whom something is "assigned to"?"""
    before = lowers(pieces[max(0, i - 12) : i])  # a window: the words a role's complement follows are few
    after = lowers(pieces[j : j + 2])
    if i == 0:
        return bool(after) and (after[0] in AGENT_VERBS or (after[0] in COPULAS and after[1:] == ["the"]))
    if len(before) >= 2 and before[-1] == "by" and before[-2] in AGENT_PARTICIPLES:
        return True
    if len(before) >= 2 and before[-1] == "to" and before[-2] in TO_PARTICIPLES:
        return True
    k = len(before)
    while k > 0 and before[k - 1] in COMPLEMENT_SKIP:
        k -= 1
    if k == 0:
        return False
    verb = before[k - 1]
    if verb in COPULAS or (verb == "been" and k >= 2 and before[k - 2] in ("has", "have", "had")):
        return k >= 2 and before[k - 2] not in PRONOUNS and before[k - 2] != "there"
    return verb == "be" and k >= 2 and before[k - 2] == "will"


def tense_of(pieces: list[Piece]) -> str:
    """ "past" when the statement's first verb is a past copula stating a value ("was 40k", "was the lead", "had 11
    engineers"; not "was moved to July", which says what holds now), "present" for is/are/has/have/will, else ""."""
    for index, piece in enumerate(pieces):
        if not isinstance(piece, Word) or piece.lower not in TENSES:
            continue
        if TENSES[piece.lower] == "present":
            return "present"
        following = next((p for p in pieces[index + 1 :] if not (isinstance(p, Word) and p.lower in ADVERBS)), None)
        states = isinstance(following, Value) or (
            isinstance(following, Word) and (following.lower in ARTICLES or following.lower in PREPOSITIONS)
        )
        return "past" if states else ""
    return ""


TENSES = {"is": "present", "are": "present", "am": "present", "has": "present", "have": "present",
          "will": "present", "was": "past", "were": "past", "had": "past"}  # fmt: skip


def subject_of(pieces: list[Piece]) -> str:
    """The words before the statement's copula ("the launch budget" in "The launch budget is 40,000 EUR"), when a
    value follows it (perhaps after "planned for", "moved to"); "" otherwise."""
    for index, piece in enumerate(pieces):
        if isinstance(piece, Value) or piece.kind == "punct" or index > 8:
            return ""
        if piece.lower in COPULAS or (
            piece.lower in ("has", "have", "will") and next_lower(pieces, index) in ("been", "be")
        ):
            break
        if piece.lower in NEGATIONS | HEDGES | AGENT_VERBS:
            return ""
    else:
        return ""
    if index == 0:
        return ""
    rest = pieces[index + 1 :]
    following = next((piece for piece in rest if not (isinstance(piece, Word) and piece.lower in SETTING)), None)
    if not isinstance(following, Value):
        return ""
    return lead(pieces[0].start, pieces[index - 1].end, pieces)


def lead(start: int, end: int, pieces: list[Piece]) -> str:
    """The statement's text from start to end, its opening article lowercased."""
    text = ""
    for piece in pieces:
        if start <= piece.start and piece.end <= end:
            gap = " " if text and not (isinstance(piece, Word) and piece.kind == "punct") else ""
            text += gap + piece.text
    first, _, rest = text.partition(" ")
    if first in OPENERS:
        text = f"{first.lower()} {rest}"
    return text.strip()


OPENERS = {"The", "A", "An", "Our", "We", "Each", "Every", "All", "This", "Its", "Their"}
