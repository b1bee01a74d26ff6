"""Words the corrections pages share."""


def counted(number: int, noun: str) -> str:
    """`1 claim`, `2 claims`: a number with its noun."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
