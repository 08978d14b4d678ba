"""The arithmetic frames: each a phrasing family with its slots ("increase N by P%", "P% tip on
N", "split N between K", "cube root of N", "how many U1 in N U2") and what it builds."""

from __future__ import annotations

import re
from collections.abc import Callable

from planner_svc.grammar import lexicon
from planner_svc.grammar.arithmetic.arith_words import _A, _F, _PCT, _WHAT, NUM, NUM_LIST, Built
from planner_svc.grammar.arithmetic.frame_builders import (
    _BILL,
    _FOR,
    _FOR_A_PERIOD,
    _FRACTIONS,
    _ITEM,
    _QUANTITY,
    _RATE,
    _TEMPERATURE,
    _UNIT,
    _absolute,
    _average,
    _convert,
    _decrease,
    _difference,
    _discount,
    _each,
    _extreme,
    _floor_or_ceiling,
    _fraction,
    _fraction_of,
    _goes_into,
    _implicit,
    _increase,
    _nth_root,
    _percent,
    _percent_change,
    _percent_of_result,
    _power,
    _product,
    _range_sum,
    _remainder,
    _root,
    _round_nearest,
    _round_result,
    _round_result_said,
    _round_result_way,
    _rounded,
    _rounded_expression,
    _rounded_way,
    _scaled,
    _scaled_in_unit,
    _split,
    _sum,
    _temperature,
    _tip,
    _what_percent,
    _what_percent_of_units,
    _with_tip,
)

# What the number is, said before it: "salary 52000 plus a 4 percent raise", "my rent of 1200"
_LABEL = (
    r"(?:(?:(?:my|the|our)\s+)?(?:salary|rent|price|cost|bill|pay|wage|budget|total)\s+(?:is\s+|of\s+)?)?"
)

# A whole unit of money or a whole number, to round to.
_WHOLE_ONE = r"(?:whole\s+)?(?:number|integer|dollar|euro|pound|buck|quid|unit)"

# Every phrasing with its expression and how its answer reads, tried in order.
_FRAMES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Built]]] = [
    (rf"{_WHAT}(?:sum|total)\s+of\s+(?P<list>{NUM_LIST})", _sum),
    # numbers under a label: "total of my grocery list: 4.50, 3.25 and 12", "a list of 5 numbers:
    # 3, 7, 8, 10, 12 - what's the average?"
    (
        rf"{_WHAT}(?:sum|total)\s+of\s+(?:my\s+|the\s+|this\s+)?(?:[a-z]+\s+){{0,2}}(?:list|bill|receipt|costs|prices)"
        rf"\s*:\s*(?P<list>{NUM_LIST})",
        _sum,
    ),
    (
        rf"(?:(?:a|the|my)\s+)?list\s+of\s+(?:\d+\s+)?numbers\s*:\s*(?P<list>{NUM_LIST})\s*[-,:]?\s*"
        rf"{_WHAT}(?:the\s+)?(?:average|mean)",
        _average,
    ),
    (rf"(?:add\s+up|sum\s+up|sum|total|add|total\s+up)\s+(?P<list>{NUM_LIST})", _sum),
    (rf"{_WHAT}(?:average|mean)\s+(?:of\s+)?(?P<list>{NUM_LIST})", _average),
    (rf"(?:average|mean)\s+(?P<list>{NUM_LIST})", _average),
    (
        rf"(?:my\s+|the\s+|our\s+)?{_ITEM}(?:are|were|was|is)\s+(?P<list>{NUM_LIST}),?\s+{_WHAT}"
        r"(?:my\s+|the\s+|their\s+|our\s+)?(?:average|mean)",
        _average,
    ),
    (
        rf"{_WHAT}(?:sum|total)\s+of\s+(?:(?:all\s+)?(?:the\s+)?(?:whole\s+)?(?:numbers|integers)\s+)?(?:from\s+|between\s+)?"
        rf"(?P<a>{NUM})\s+(?:to|and|through|thru)\s+(?P<b>{NUM})",
        _range_sum,
    ),
    # percentages of and changes by
    (rf"{_WHAT}(?P<p>{NUM}){_PCT}\s+(?:of|from)\s+(?P<n>{NUM})", _percent),
    (rf"{_WHAT}(?:increase|raise|grow|mark\s+up|inflate|up)\s+(?P<n>{NUM})\s+by\s+{_RATE}", _increase),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:increased|raised|marked\s+up|grown|up)\s+by\s+{_RATE}", _increase),
    (
        rf"{_WHAT}{_LABEL}(?P<n>{NUM})\s+(?:plus|\+|and)\s+(?:an?\s+)?(?:extra\s+|additional\s+|another\s+)?{_RATE}"
        r"(?:\s+(?:more|extra|on\s+top|(?:sales\s+)?tax|vat|gst|raise|(?:pay\s+)?rise|increase|markup))?",
        _increase,
    ),
    # "250 plus VAT at 20%", "80 with tax of 8%": the tax named first, its rate after
    (
        rf"{_WHAT}{_LABEL}(?P<n>{NUM})\s+(?:plus|\+|with|and)\s+(?:the\s+)?(?:(?:sales\s+)?tax|vat|gst)\s+(?:at|of|@)\s+"
        rf"{_RATE}",
        _increase,
    ),
    (rf"{_WHAT}{_RATE}\s+(?:more\s+than|on\s+top\s+of|added\s+to|increase\s+on)\s+(?P<n>{NUM})", _increase),
    (rf"add\s+{_RATE}\s+(?:to|on\s+top\s+of|onto)\s+(?P<n>{NUM})", _increase),
    # "plus 20% VAT on that", "add a 15% tip to it": a rate named by what it is, on a number
    (
        rf"(?:plus|add|with|put)\s+(?:an?\s+|the\s+)?{_RATE}\s+(?:(?:sales\s+)?tax|vat|gst|tip|service(?:\s+charge)?"
        rf"|markup|surcharge|interest)\s+(?:on|to|onto|on\s+top\s+of)\s+(?P<n>{NUM})",
        _increase,
    ),
    (rf"(?:take|knock)\s+{_RATE}\s+off\s+(?:of\s+)?{_A}(?P<n>{NUM})", _discount),
    (
        rf"{_WHAT}(?:decrease|reduce|lower|cut|drop|discount|knock\s+down|bring\s+down)\s+(?P<n>{NUM})\s+by\s+{_RATE}",
        _decrease,
    ),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:decreased|reduced|lowered|cut|discounted|down)\s+by\s+{_RATE}", _decrease),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:minus|less|-)\s+(?:an?\s+)?{_RATE}", _decrease),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:with|at|after|after\s+an?)\s+{_RATE}\s+(?:off|discount)", _discount),
    (rf"{_WHAT}{_RATE}\s+(?:off|discount\s+on|off\s+of)\s+{_A}(?P<n>{NUM}){_ITEM}?", _discount),
    (
        rf"{_A}(?P<n>{NUM})\s+{_ITEM}(?:is|at|with|on\s+sale\s+at|marked)\s+{_RATE}\s+off"
        r"(?:,?\s+(?:how\s+much\s+(?:do|will|would|should|did)\s+(?:i|we)\s+pay|how\s+much\s+is\s+it(?:\s+now)?"
        r"|what\s+is\s+the\s+(?:new\s+|sale\s+|final\s+)?price|what\s+do\s+i\s+pay|how\s+much\s+does\s+it\s+cost))?",
        _discount,
    ),
    (
        rf"what\s+(?:percent|percentage|%)\s+(?:is|of)\s+(?P<a>{NUM})\s+(?:is\s+)?(?:of|out\s+of|from)\s+(?P<b>{NUM})",
        _what_percent,
    ),
    (rf"what\s+(?:percent|percentage|%)\s+of\s+(?P<b>{NUM})\s+is\s+(?P<a>{NUM})", _what_percent),
    (rf"(?P<a>{NUM})\s+is\s+what\s+(?:percent|percentage|%)\s+of\s+(?P<b>{NUM})", _what_percent),
    (
        rf"(?P<a>{NUM})\s*(?P<u1>{_UNIT})\s+(?:is|are)\s+what\s+(?:percent|percentage|%)\s+of\s+"
        rf"(?:an?\s+|(?P<b>{NUM})\s*)(?P<u2>{_UNIT})",
        _what_percent_of_units,
    ),
    # "what's 45 minutes times 4 in hours": a quantity scaled, then given in another unit of its kind
    (
        rf"{_WHAT}(?P<a>{NUM})\s*(?P<u1>{_UNIT})\s+(?P<op>times|x|\*|multiplied\s+by|divided\s+by|/)\s+"
        rf"(?P<k>{NUM})\s+(?:in|into|as)\s+(?P<u2>{_UNIT})",
        _scaled_in_unit,
    ),
    # "what percentage of an hour is 45 minutes": the same, the whole said first
    (
        rf"what\s+(?:percent|percentage|%)\s+of\s+(?:an?\s+|(?P<b>{NUM})\s*)(?P<u2>{_UNIT})\s+(?:is|are)\s+"
        rf"(?P<a>{NUM})\s*(?P<u1>{_UNIT})",
        _what_percent_of_units,
    ),
    (
        rf"{_WHAT}(?P<a>{NUM})\s+(?:out\s+of|of)\s+(?P<b>{NUM})\s+(?:as\s+an?|as|in)\s+(?:percent|percentage)",
        _what_percent,
    ),
    (rf"{_WHAT}(?P<a>{NUM})\s+as\s+an?\s+(?:percent|percentage)\s+of\s+(?P<b>{NUM})", _what_percent),
    (
        rf"{_WHAT}(?:percent|percentage|%)\s+(?:change|increase|decrease|difference|growth|rise|drop|fall|gain"
        rf"|loss)\s+(?:from|between)\s+(?P<a>{NUM})\s+(?:to|and)\s+(?P<b>{NUM})",
        _percent_change,
    ),
    (
        rf"(?:my\s+|the\s+|our\s+|it\s+)?(?:[a-z][a-z0-9]*\s+){{0,3}}(?:went|goes|grew|rose|fell|dropped|changed"
        rf"|increased|decreased|jumped|moved|climbed)\s+(?:up\s+|down\s+)?(?:from\s+(?P<a>{NUM})\s+to"
        # "went 840 -> 1092"
        rf"|(?P<a2>{NUM})\s*(?:->|:|to))\s+(?P<b>{NUM}),?\s+{_WHAT}"
        r"(?:percent|percentage|%)(?:\s+(?:change|increase|decrease|difference|growth|rise|drop|fall|gain|loss))?",
        _percent_change,
    ),
    # tips, bills and shares
    (rf"{_WHAT}(?:an?\s+)?{_RATE}\s+tip\s+(?:on|for|of)\s+{_A}(?P<n>{NUM}){_BILL}", _tip),
    (rf"{_WHAT}tip\s+(?:of\s+)?{_RATE}\s+(?:on|for)\s+{_A}(?P<n>{NUM}){_BILL}", _tip),
    (rf"{_WHAT}tip\s+(?:on|for)\s+{_A}(?P<n>{NUM}){_BILL}\s+at\s+{_RATE}", _tip),
    (
        rf"(?:how\s+much|what)\s+(?:should|do|would|must|shall)\s+(?:i|we)\s+(?:tip|leave)\s+(?:on|for)\s+{_A}(?P<n>{NUM})"
        rf"{_BILL}\s+(?:at|with|for|if\s+(?:i|we)\s+tip)\s+(?:an?\s+)?{_RATE}(?:\s+tip)?",
        _tip,
    ),
    (
        rf"{_WHAT}total\s+(?:with|including|incl|plus|after|and)\s+(?:an?\s+)?{_RATE}\s+tip\s+(?:on|for)\s+{_A}"
        rf"(?P<n>{NUM}){_BILL}",
        _with_tip,
    ),
    (
        rf"{_WHAT}(?P<n>{NUM}){_BILL}\s+(?:with|plus|and|including|\+)\s+(?:an?\s+)?{_RATE}\s+tip"
        rf"(?:,?\s+{_WHAT}total(?:\s+be)?)?",
        _with_tip,
    ),
    (
        rf"(?:the\s+|my\s+|our\s+)?(?:bill|check|meal|dinner|tab|total|lunch)\s+(?:is|was|came\s+to|comes\s+to)\s+"
        rf"(?P<n>{NUM}),?\s+(?:add|plus|with|and)\s+(?:an?\s+)?{_RATE}\s+tip,?\s+{_WHAT}total(?:\s+be|\s+come\s+to)?",
        _with_tip,
    ),
    (
        rf"split\s+{_A}(?P<n>{NUM}){_BILL}\s+(?:evenly\s+|equally\s+)?(?:between|among|amongst|by|with|across|into"
        rf"|for|in)\s+(?P<k>{NUM}){_FOR}(?:\s+evenly|\s+equally)?",
        _split,
    ),
    (rf"split\s+{_A}(?P<n>{NUM}){_BILL}\s+(?P<k>{NUM})\s+ways", _split),
    (
        rf"divide\s+{_A}(?P<n>{NUM}){_BILL}\s+(?:evenly\s+|equally\s+)?(?:between|among|amongst|into)\s+(?P<k>{NUM})"
        rf"{_FOR}(?:\s+evenly|\s+equally)?",
        _split,
    ),
    (
        rf"{_A}(?P<n>{NUM}){_BILL}\s+(?:split|shared|divided)\s+(?:evenly\s+|equally\s+)?(?:between|among|amongst|by"
        rf"|into|with)\s+(?P<k>{NUM}){_FOR}",
        _split,
    ),
    (
        rf"we\s+are\s+(?P<k>{NUM}){_FOR}\s+and\s+the\s+(?:bill|check|total|dinner|meal|tab)\s+(?:is|was|came\s+to)\s+"
        rf"(?P<n>{NUM}),?\s+how\s+much\s+(?:each|is\s+that\s+each|per\s+person|do\s+we\s+each\s+pay"
        r"|does\s+each\s+(?:of\s+us|person)\s+pay)",
        _split,
    ),
    (
        rf"(?:the\s+|my\s+|our\s+)?(?:bill|check|dinner|meal|total|lunch|tab)\s+(?:is|was|came\s+to)\s+(?P<n>{NUM})"
        rf"\s+(?:plus|with|and)\s+(?:an?\s+)?{_RATE}\s+tip,?\s+split\s+(?:evenly\s+|equally\s+)?(?:between|among)"
        rf"\s+(?P<k>{NUM}){_FOR}",
        _split,
    ),
    (
        rf"(?:i\s+|we\s+)?(?:bought|buy|got|ordered|need|purchased|get)?\s*(?P<k>{NUM})\s+{_ITEM}(?:at|for|@)\s+"
        rf"(?P<n>{NUM})\s+each(?:,?\s+{_WHAT}(?:total|cost|price))?",
        _each,
    ),
    # powers, roots, fractions
    (rf"{_WHAT}(?P<n>{NUM})\s+squared", _power("2", "squared")),
    (rf"{_WHAT}(?P<n>{NUM})\s+cubed", _power("3", "cubed")),
    (rf"{_WHAT}square\s+of\s+(?P<n>{NUM})", _power("2", "squared")),
    (rf"square\s+(?P<n>{NUM})", _power("2", "squared")),
    (rf"cube\s+(?P<n>{NUM})", _power("3", "cubed")),
    (rf"{_WHAT}cube\s+of\s+(?P<n>{NUM})", _power("3", "cubed")),
    (
        rf"{_WHAT}(?P<n>{NUM})\s+(?:to\s+the\s+power\s+of|to\s+the\s+power|raised\s+to(?:\s+the\s+power\s+of)?"
        rf"|raised\s+to\s+the|to\s+the|\^|\*\*)\s+(?P<e>{NUM})(?:st|nd|rd|th)?(?:\s+power)?",
        _power(),
    ),
    (rf"{_WHAT}(?:square\s+root|sqrt)\s+(?:of\s+)?(?P<n>{NUM})", _root),
    (
        rf"{_WHAT}(?P<k>cube|cubic|\d+(?:st|nd|rd|th)|{'|'.join(lexicon.ORDINALS)})\s+root\s+(?:of\s+)?(?P<n>{NUM})",
        _nth_root,
    ),
    (rf"{_WHAT}absolute\s+value\s+of\s+(?P<n>{NUM})", _absolute),
    (
        rf"{_WHAT}(?P<which>min|minimum|max|maximum|smallest|largest|biggest|lowest|highest|least|greatest)"
        rf"\s+(?:number\s+)?(?:of|in|among)\s+(?P<list>{NUM_LIST})",
        _extreme,
    ),
    (rf"{_WHAT}(?P<f>floor|ceiling|ceil)\s+of\s+(?P<n>{NUM})", _floor_or_ceiling),
    (rf"{_WHAT}(?:(?:a|an|1)\s+|(?P<k>\d+)\s+)(?P<f>{'|'.join(_FRACTIONS)})\s+of\s+(?P<n>{NUM})", _fraction),
    (rf"{_WHAT}(?P<a>\d+)\s*/\s*(?P<b>\d+)\s+of\s+(?P<n>{NUM})", _fraction_of),
    (rf"{_WHAT}half\s+(?:of\s+)?(?P<n>{NUM})", _scaled("Half of", "2", "/")),
    (rf"{_WHAT}halve\s+(?P<n>{NUM})", _scaled("Half of", "2", "/")),
    (rf"(?:{_WHAT}double|twice|double)\s+(?P<n>{NUM})", _scaled("Double", "2", "*")),
    (rf"{_WHAT}triple\s+(?P<n>{NUM})", _scaled("Triple", "3", "*")),
    (rf"{_WHAT}(?P<list>{NUM_LIST})\s+(?:added\s+(?:together|up)|summed(?:\s+up)?|together)", _sum),
    (
        rf"how\s+many\s+(?:whole\s+)?times\s+(?:does|will|can|would)\s+(?P<b>{NUM})\s+go\s+into\s+(?P<a>{NUM})",
        _goes_into,
    ),
    (rf"{_WHAT}difference\s+between\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})", _difference),
    (rf"{_WHAT}product\s+of\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})", _product),
    (
        rf"{_WHAT}remainder\s+(?:when|of|if|after)\s+(?P<a>{NUM})\s+(?:is\s+)?divided\s+by\s+(?P<b>{NUM})",
        _remainder,
    ),
    (
        # "the remainder when you divide 17 by 5", "remainder of dividing 17 by 5"
        rf"{_WHAT}remainder\s+(?:when\s+(?:you|we|i)\s+divide|(?:of|after|from)\s+dividing|if\s+(?:you|we|i)\s+divide)"
        rf"\s+(?P<a>{NUM})\s+by\s+(?P<b>{NUM})",
        _remainder,
    ),
    # rounding
    (
        rf"round\s+(?P<n>{NUM})\s+(?P<way>up|down)\s+to\s+(?:a|the\s+nearest)\s+whole(?:\s+number)?",
        _rounded_way,
    ),
    (rf"round\s+(?P<n>{NUM})\s+(?P<way>up|down)", _rounded_way),
    (rf"round\s+(?P<way>up|down)\s+(?P<n>{NUM})", _rounded_way),
    (
        rf"round\s+(?P<n>{NUM})(?:\s+(?:off\s+)?to\s+(?P<d>\d{{1,2}})\s+(?:decimal\s+)?(?:places?|decimals?|digits?|dp))?",
        _rounded,
    ),
    (
        rf"round\s+(?:off\s+)?(?P<n>{NUM})\s+(?:off\s+)?to\s+the\s+nearest\s+(?P<u>whole\s+number|integer|whole|unit"
        r"|one|number|dollar|ten|hundred|thousand|tenth|hundredth|thousandth)",
        _round_nearest,
    ),
    # "what's 1234 rounded to the nearest hundred"
    (
        rf"{_WHAT}(?P<n>{NUM})\s+(?:rounded|round(?:ed)?\s+off)\s+to\s+the\s+nearest\s+(?P<u>whole\s+number|integer"
        r"|whole|unit|one|number|dollar|ten|hundred|thousand|tenth|hundredth|thousandth)",
        _round_nearest,
    ),
    (r"(?P<expr>.+?)\s+to\s+(?P<d>\d{1,2})\s+(?:decimal\s+places?|decimals|dp)", _rounded_expression),
    (
        r"round\s+(?P<expr>.+?)\s+to\s+(?P<d>\d{1,2})\s+(?:decimal\s+places?|decimals?|places?|dp)",
        _rounded_expression,
    ),
    (
        r"(?P<expr>.+?),?\s+(?:(?:rounded|round(?:ed)?\s+off)(?:\s+to\s+(?:the\s+nearest\s+)?(?:(?P<d>\d{1,2})\s+"
        r"(?:decimal\s+)?(?:places?|decimals?|digits?|dp)|whole\s+number|integer))?"
        # "19.5 / 4 to the nearest whole number"
        r"|to\s+the\s+nearest\s+(?:whole\s+number|integer|whole|(?P<d2>\d{1,2})\s+decimal\s+places?))",
        _rounded_expression,
    ),
    # units
    (
        rf"how\s+many\s+(?P<to>{_UNIT})\s+(?:are\s+|there\s+are\s+)?(?:there\s+)?(?:in|is|are|make|makes|equal|equals|to|have|has"
        rf"|in\s+a|per)\s+{_QUANTITY}(?:\s+have)?",
        _convert,
    ),
    (rf"{_WHAT}(?:number\s+of\s+)?(?P<to>{_UNIT})\s+(?:in|per)\s+{_QUANTITY}", _convert),
    (
        rf"(?:convert\s+|change\s+)?{_QUANTITY}\s+(?:in|to|into|as|in\s+terms\s+of)\s+(?P<to>{_UNIT})",
        _convert,
    ),
    (rf"{_WHAT}{_QUANTITY}\s+(?:in|to|into|as)\s+(?P<to>{_UNIT})", _convert),
    (
        rf"(?:{_WHAT}|convert\s+|change\s+)?(?P<n>{NUM})\s*(?:degrees\s+|°\s*)?(?P<t1>{_TEMPERATURE})\s+(?:in|to|into|as)"
        rf"\s+(?:degrees\s+)?(?P<t2>{_TEMPERATURE})",
        _temperature,
    ),
    # "it's 22 degrees C, what is that in F": the temperature told, then asked in the other scale
    (
        rf"(?:(?:it|its|it's|it\s+is)\s+)?(?P<n>{NUM})\s*(?:degrees\s+|°\s*)?(?P<t1>{_TEMPERATURE}),?\s+"
        rf"what\s+is\s+(?:that|it|this|RESULT)\s+in\s+(?:degrees\s+)?(?P<t2>{_TEMPERATURE})",
        _temperature,
    ),
    (
        rf"how\s+many\s+degrees\s+(?P<t2>{_TEMPERATURE})\s+(?:is|are)\s+(?P<n>{NUM})\s*(?:degrees\s+)?"
        rf"(?P<t1>{_TEMPERATURE})",
        _temperature,
    ),
    # an operation on the latest result: "then multiply by 3"
    (rf"(?:multiply|times)\s+(?:it\s+|that\s+|RESULT\s+)?by\s+(?P<n>{NUM})", _implicit("*", "times")),
    # "250 minus 37 then times 4", "times 12 for the year?": what it is for, said after it
    (rf"times\s+(?P<n>{NUM}){_FOR_A_PERIOD}", _implicit("*", "times")),
    # "x 1.5", "* 3": the sign alone, then the number
    (rf"(?:x|\u00d7|\*)\s*(?P<n>{NUM})", _implicit("*", "times")),
    (rf"divide\s+(?:it\s+|that\s+|RESULT\s+)?by\s+(?P<n>{NUM})", _implicit("/", "divided by")),
    # "15 squared minus 25, divided by 10": what was done to it, said after it
    (rf"(?:all\s+)?(?:divided|split)\s+by\s+(?P<n>{NUM})", _implicit("/", "divided by")),
    # "split 4 ways?", "and split between 3": the sum before, shared
    (rf"(?:and\s+|now\s+|then\s+)?split\s+(?P<n>{NUM})\s+ways", _implicit("/", "divided by")),
    (
        rf"(?:and\s+|now\s+|then\s+)?split\s+(?:between|among)\s+(?P<n>{NUM})(?:\s+(?:people|of\s+us|ways|friends))?",
        _implicit("/", "divided by"),
    ),
    (rf"(?:all\s+)?multiplied\s+by\s+(?P<n>{NUM})", _implicit("*", "times")),
    (rf"(?:subtract|take\s+away|minus)\s+(?P<n>{NUM})", _implicit("-", "minus")),
    (rf"(?:add|plus)\s+(?P<n>{NUM})", _implicit("+", "plus")),
    # "plus a 4.99 cereal", "plus 45 for my share of the bills": one amount, and what it is for
    (
        rf"(?:and\s+)?(?:add|plus)\s+(?:an?\s+)?(?P<n>{NUM})(?:\s+(?!(?:at|each|x|of|times|per|a|an|to|on|onto|into|in|my|the|your|list|todos?|RESULT)\b)[a-z]+){{0,2}}"
        r"(?:\s+for\s+(?!.*\b(?:each|per|every)\b)[a-z' ]+)?",
        _implicit("+", "plus"),
    ),
    # "and if I give away 15?", "what if we spend another 20": the sum before, less or more
    (
        r"(?:and\s+|so\s+)?(?:what\s+)?if\s+(?:i|we|you|she|he|they)\s+(?:then\s+)?(?:give\s+away|gave\s+away|spend|spent"
        r"|use|used|lose|lost|sell|sold|eat|ate|take\s+away|took\s+away|remove|pay|paid|give|gave|break|broke)\s+"
        rf"(?:another\s+|a\s+further\s+)?(?P<n>{NUM})(?:\s+(?:of\s+them|more|[a-z]+))?",
        _implicit("-", "minus"),
    ),
    (
        r"(?:and\s+|so\s+)?(?:what\s+)?if\s+(?:i|we|you|she|he|they)\s+(?:then\s+)?(?:add|added|get|got|buy|bought|earn"
        r"|earned|find|found|make|made|save|saved|receive|received)\s+"
        rf"(?:another\s+|a\s+further\s+)?(?P<n>{NUM})(?:\s+(?:more|extra|[a-z]+))?",
        _implicit("+", "plus"),
    ),
    # "and with the 50 delivery charge on top?": the sum before and that amount
    (
        # (never a rate: "add 20 percent on top" is 20% of it)
        rf"(?:and\s+)?(?:with|plus|add)\s+(?:the\s+|a\s+|an\s+|another\s+)?(?P<n>{NUM})"
        r"(?:\s+(?!(?:percent|per|pct|cent)\b)[a-z]+){0,3}\s+on\s+top"
        r"(?:\s+of\s+(?:RESULT|that|it))?",
        _implicit("+", "plus"),
    ),
    # "and with 8% tax?", "with a 15% tip": the sum before and that much more ("after 20% tax" is
    # less on a wage and more on a bill: not read)
    (
        rf"(?:and\s+)?(?:with|incl|including|plus)\s+(?:an?\s+)?{_RATE}\s+(?:tax|tip|vat|gst|sales\s+tax"
        r"|service(?:\s+charge)?)(?:\s+(?:on\s+)?(?:RESULT|on\s+top))?",
        _percent_of_result("+"),
    ),
    (rf"(?:and\s+)?after\s+(?:an?\s+)?{_RATE}\s+tip", _percent_of_result("+")),
    # "and with 20% off that?", "what if it was 10% more?"
    (
        rf"(?:and\s+)?with\s+(?:an?\s+)?{_RATE}\s+(?:off|discount)(?:\s+(?:RESULT|on\s+RESULT))?",
        _percent_of_result("-"),
    ),
    (
        rf"(?:and\s+)?what\s+if\s+RESULT\s+(?:was|were|is|went)\s+{_RATE}\s+(?P<way>more|higher|less|lower|up|down)",
        _percent_of_result(""),
    ),
    # a percent of the latest result: "then add 5% tax", "add a 20% tip to each share", "take 10%
    # off", "then down by 10%"
    (
        rf"(?:add|plus)\s+(?:an?\s+)?{_RATE}(?:\s+(?:tax|tip|vat|gst|sales\s+tax|service(?:\s+charge)?|markup"
        r"|interest|more|extra))?(?:\s+(?:to|on)\s+(?:each|every)(?:\s+(?:share|one|person|part|portion))?)?",
        _percent_of_result("+"),
    ),
    (
        rf"(?:take|knock|subtract|minus)\s+(?:off\s+)?(?:an?\s+)?{_RATE}(?:\s+off)?(?:\s+(?:discount|less))?",
        _percent_of_result("-"),
    ),
    (rf"(?:(?:goes|went|go)\s+)?(?P<way>up|down)\s+(?:by\s+)?{_RATE}", _percent_of_result("")),
    # "round up to the next whole dollar": a whole one of the money it is in, so a whole number
    (
        r"(?:rounded|round(?:ed)?(?:\s+RESULT)?)\s+(?P<way>down|up)"
        rf"(?:\s+to\s+(?:the\s+)?(?:next|nearest)\s+{_WHOLE_ONE})?",
        _round_result_way,
    ),
    (
        r"(?:round|rounded)(?:\s+(?:it|that|RESULT|the\s+result))?(?:\s+off)?(?:\s+to\s+(?:the\s+nearest\s+)?(?P<d>\d{1,2})\s+(?:decimal\s+)?"
        rf"(?:places?|decimals?|digits?|dp)|\s+to\s+(?:the\s+nearest\s+)?(?:whole\s+number|integer)|\s+to\s+the\s+nearest\s+{_WHOLE_ONE})?",
        _round_result,
    ),
    # "... how much at the end? to the cent", "nearest whole number", "to one decimal": how the
    # latest result is to be rounded, said alone
    (
        r"(?:(?:round|rounded)(?:\s+(?:it|that|RESULT|the\s+result))?(?:\s+off)?\s+)?(?:(?:to\s+)?(?:the\s+)?"
        r"(?:nearest\s+)?(?P<cent>cent|penny|pence)|(?:to\s+)?(?:the\s+)?nearest\s+(?:whole(?:\s+number)?|integer"
        r"|degree|dollar|pound|euro|minute|hour|km|mile|kg|unit|number)|to\s+(?P<w>one|two|three|1|2|3)\s+"
        r"(?:decimal(?:\s+places?)?|decimals|dp))",
        _round_result_said,
    ),
]
_COMPILED = [(re.compile(rf"^(?:{pattern})$", _F), build) for pattern, build in _FRAMES]
_BINARY_WORDS = [
    (re.compile(rf"^(?:add|sum)\s+(?P<a>{NUM})\s+(?:and|to|plus|with)\s+(?P<b>{NUM})$", _F), "{a} + {b}"),
    (re.compile(rf"^(?:what is\s+)?the sum of\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})$", _F), "{a} + {b}"),
    (re.compile(rf"^subtract\s+(?P<a>{NUM})\s+from\s+(?P<b>{NUM})$", _F), "{b} - {a}"),
    # "what's left if I take 30 from 100", "take away 30 from 100"
    (
        re.compile(
            rf"^(?:what\s+is\s+left\s+if\s+(?:i|you|we)\s+|how\s+much\s+is\s+left\s+if\s+(?:i|you|we)\s+)?"
            rf"(?:take|take\s+away|remove)\s+(?P<a>{NUM})\s+(?:away\s+)?from\s+(?P<b>{NUM})$",
            _F,
        ),
        "{b} - {a}",
    ),
    (re.compile(rf"^multiply\s+(?P<a>{NUM})\s+(?:by|and|with|times)\s+(?P<b>{NUM})$", _F), "{a} * {b}"),
    (re.compile(rf"^divide\s+(?P<a>{NUM})\s+(?:by|over)\s+(?P<b>{NUM})$", _F), "{a} / {b}"),
]
