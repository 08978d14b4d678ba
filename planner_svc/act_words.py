"""The words the acts on a conversation are made of, shared by the modules that read them
(acts.py, one_more.py): where a message breaks into pieces, what makes words a request of their
own, and the politeness that may close one."""

from __future__ import annotations

import re

_F = re.IGNORECASE
PIECES = re.compile(r"\s*(?:[,;.!]+|\s-\s)\s*")
# What a correction puts right is a name or a reference, not a request of its own ("I meant, add
# call mom too" asks for something: the grammar reads it).
REQUEST = re.compile(
    r"^(?:add|put|create|delete|remove|mark|tick|check|cross|complete|finish|show|list|clear|calculate"
    r"|what|how|undo|please|can|could|to)\b",
    _F,
)
POLITE_REST = re.compile(
    r"(?:if\s+you\s+(?:would|could|can|don't\s+mind|do\s+not\s+mind)|please|pls|thanks|thank\s+you|cheers)[\s.!]*",
    _F,
)
