"""The judgement of whether two statements contradict each other (stand-in until i25-rule merges)."""
