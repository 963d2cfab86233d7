import itertools

PAIRS = list(itertools.product(["a", "b"], [1, 2]))

CASES = []
for n in range(3):
    CASES.append((n, n * n))
CASES += [(10, 100)]
CASES.extend([(-1, 1)])


def make_cases(prefix, count=2):
    return [f"{prefix}-{i}" for i in range(count)]


def generated():
    for word in ("x", "yy"):
        yield word * 2
