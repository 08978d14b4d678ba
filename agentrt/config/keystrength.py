"""How strong an API key looks: an estimate of its entropy, since its true entropy cannot be known
from the key alone (a random-looking string may be a well-known one). Keys estimated below
MIN_KEY_BITS are refused when the settings are read, so no deployment starts with a guessable
key: with keys this strong, guessing one online is useless however fast the guesser is, which
is why the gateway never needs to refuse a right key for the wrong ones sent beside it
(gateway/auth.py).

The rule, meant to err low (a key it rates strong may still be weak; one it rates weak is
refused even if it was random):

1. Each character is worth the smaller of log2 of the alphabet the key's character classes
   span (lowercase 26, uppercase 26, digits 10, anything else 33) and the Shannon entropy of
   the key's own character frequencies ("aaaa..." is worth nothing, a key of hex digits at
   most 4 bits a character).
2. A character repeating an earlier stretch of the key (3 or more characters in a row:
   "passwordpassword") or carrying on a run of equal or consecutive characters ("zzz", "abc",
   "6789") is worth nothing.
3. A key in a UUID's form carries at most 122 random bits (a version 4 UUID's).
4. Only the first MAX_READ_CHARS characters are read: a longer key is judged by them.
5. The key is also read as zxcvbn (Dropbox's password estimator, pinned) reads a password,
   piece by piece between separators: dictionary words, names, keyboard walks, dates and
   sequences are worth only their guesses; the rest as rules 1 and 2 value it. The smaller of
   the two readings is the estimate. So "acme-production-gateway-api-key-for-the-billing-team-2024"
   (about 90 bits), a keyboard walk and a pangram with digits are refused, however long.

Random keys of 256 bits (`agentrt keys new`: 43 URL-safe base64 characters; or 64 hex digits)
are rated about 210 and 240 bits, and never below 170 in 20,000 draws of each. Random 128-bit
keys (32 hex digits, UUIDs) fall short, as do names and words with digits
("alice-key-0123456789" is rated about 50 bits).
"""

from __future__ import annotations

import math
import re
import secrets
from collections import Counter

MIN_KEY_BITS = 128
MAX_READ_CHARS = 1024
UUID_BITS = 122.0
# What the refusal tells the operator to run (one line; the CLI's command, or Python alone).
MAKE_ONE = (
    'make one with `agentrt keys new` (or python -c "import secrets; print(secrets.token_urlsafe(32))")'
)
# A repeat this long or longer is a copy, not new characters.
_MIN_REPEAT = 3
_OTHER_CHARS = 33  # ASCII punctuation and the space
# Separators between the pieces zxcvbn reads one at a time; what it reads at once at most.
_SEPARATORS = re.compile(r"[-_.:/+=\s]+")
_ZXCVBN_MAX_CHARS = 72
_LOG2_10 = math.log2(10)
_UUID = re.compile(r"[0-9a-f]{8}(-?)[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{12}", re.IGNORECASE)


def new_key() -> str:
    """A random key of 256 bits, as 43 URL-safe characters (what `agentrt keys new` prints)."""
    return secrets.token_urlsafe(32)


def estimated_bits(key: str) -> float:
    """The key's entropy as the module's rule estimates it, in bits."""
    text = key[:MAX_READ_CHARS]
    if not text:
        return 0.0
    per_char = min(math.log2(_alphabet(text)), _shannon(text))
    bits = min(_new_characters(text) * per_char, _pattern_bits(text, per_char))
    return min(bits, UUID_BITS) if _UUID.fullmatch(text) else bits


def _pattern_bits(text: str, per_char: float) -> float:
    """The key read as zxcvbn reads a password, piece by piece between separators (words joined
    by dashes are found one by one): a word, a name, a keyboard walk, a date or a sequence is
    worth what zxcvbn says it costs to guess (log2 of its guesses); what it finds no pattern in
    is worth `per_char` a new character, as rule 1 and 2 value it (zxcvbn's own brute force
    counts 10 guesses a character, which would rate every random key low)."""
    from zxcvbn import zxcvbn  # noqa: PLC0415  (its dictionaries load when a key is first judged)

    bits = 0.0
    for piece in _SEPARATORS.split(text):
        for start in range(0, len(piece), _ZXCVBN_MAX_CHARS):
            chunk = piece[start : start + _ZXCVBN_MAX_CHARS]
            if not chunk:
                continue
            for match in zxcvbn(chunk, max_length=_ZXCVBN_MAX_CHARS)["sequence"]:
                if match["pattern"] == "bruteforce":
                    bits += _new_characters(match["token"]) * per_char
                else:
                    bits += float(match["guesses_log10"]) * _LOG2_10
    return bits


def weakness(name: str, key: str) -> str | None:
    """Why key `name` is refused (one line), or None when it is strong enough."""
    bits = estimated_bits(key)
    if bits >= MIN_KEY_BITS:
        return None
    return (
        f"key '{name}' is too weak: about {bits:.0f} bits of entropy by agentrt's estimate, "
        f"{MIN_KEY_BITS} needed; {MAKE_ONE}"
    )


def _alphabet(text: str) -> int:
    size = 0
    size += 26 if any("a" <= c <= "z" for c in text) else 0
    size += 26 if any("A" <= c <= "Z" for c in text) else 0
    size += 10 if any("0" <= c <= "9" for c in text) else 0
    size += _OTHER_CHARS if any(not (c.isascii() and c.isalnum()) for c in text) else 0
    return size


def _shannon(text: str) -> float:
    n = len(text)
    return sum(k / n * math.log2(n / k) for k in Counter(text).values())


def _new_characters(text: str) -> int:
    """How many characters are neither part of a repeat of an earlier stretch nor the next of a
    run ("zzz", "abc", "cba"): a greedy left-to-right parse, as LZ77 reads a string."""
    count, i = 0, 0
    while i < len(text):
        # The longest stretch starting here that also starts earlier (it may overlap here).
        length = 0
        while i + length < len(text) and text[i : i + length + 1] in text[: i + length]:
            length += 1
        if length >= _MIN_REPEAT:
            i += length
            continue
        step = ord(text[i]) - ord(text[i - 1]) if i else 2
        if abs(step) <= 1 and i >= 2 and step == ord(text[i - 1]) - ord(text[i - 2]):
            i += 1
            continue
        count += 1
        i += 1
    return count
