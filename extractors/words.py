"""Words too common to say what a text is about: left out when matching items to notes and naming themes."""

STOP_WORDS = frozenset(
    "the and for with that this from have has was were are you your not but they them their what when which who "
    "will would about into than then there these those our out can all just after again against among because "
    "before being between could every other thing things through under using while notes summary review".split()
)
