"""The offline contradiction rule: do two statements say different things about the same subject? Pure code: no
Django, no graph, no model. `tokens` cuts a statement into words, numbers, codes and times; `values` finds the
values in it (amounts of money, percentages, quantities, durations, and through `dates` the dates and times), each
normalised so that the same value written differently compares equal; `frames` reduces a statement once to its
frame (its content words with each value replaced by its type) and its polarity; `rule` judges a pair:
`judge(a, b)`, or `analyse` each statement once and `judge_analysed(x, y)` for many pairs. What it catches and what
it refuses on purpose is in docs/suggestions.md."""
