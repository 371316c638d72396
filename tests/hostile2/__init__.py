"""A second hostile generator (issue 25): new mutation operators, one class of weakness each."""
