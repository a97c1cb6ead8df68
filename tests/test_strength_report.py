"""benchmarks/strength.py report --into: the Progress table rewritten in place."""
import pytest
from scripts import load_script

DOC = """# Strength

**Progress** (`strength.py report --prefix g1-`; a row in progress):

| row | A |
|---|---|
| g1-old | x |

Prose after the table stays.

| row | other table |
|---|---|
"""


def test_the_table_after_the_line_naming_the_report_is_replaced_and_nothing_else():
    strength = load_script("benchmarks/strength.py")
    table = "| row | A |\n|---|---|\n| g1-a | 1 |\n| g1-b | 2 |"
    out = strength.replace_table(DOC, "g1-", table)
    assert out == DOC.replace("| g1-old | x |", "| g1-a | 1 |\n| g1-b | 2 |")
    assert strength.replace_table(out, "g1-", table) == out
    with pytest.raises(SystemExit, match="g2-"):
        strength.replace_table(DOC, "g2-", table)
    # the line may go on naming the report's options
    other = DOC.replace("g1-`;", "g1- --into FILE`;")
    assert strength.replace_table(other, "g1-", table) == out.replace("g1-`;", "g1- --into FILE`;")
    with pytest.raises(SystemExit):     # g1 is not the prefix g1-
        strength.replace_table(DOC, "g1", table)
