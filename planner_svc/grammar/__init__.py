"""The rule planner's grammar: how one clause of a prompt becomes an intent, or nothing.

- `normalize`: the text as the frames read it: punctuation, contractions and chat spellings,
  misspelt command words (only words that are not English at all), polite words; and for
  arithmetic, numbers written as words, money and thousands separators.
- `lexicon`: the words per intent: the verbs that complete, delete or add, the words that mean
  open or done, the units and the verbs a todo starts with.
- `arithmetic` and `todos`: the intent frames, each with its slots (numbers, a todo's text, a
  state, a reference to an earlier result or todo) and how its answer reads.
- `intent`: what a frame makes.

Splitting a prompt into clauses, binding references and deciding "understood" or "refused"
is planner_svc/rules.py's job: the one place that decides. A frame only says what one clause
means, or that it does not know (None): it never guesses.
"""
