"""Words too common to say what a text is about: left out when matching items to notes and naming themes."""

STOP_WORDS = frozenset(
    "the and for with that this from have has was were are you your not but they them their what when which who "
    "will would about into than then there these those our out can all just after again against among because "
    "before being between could every other thing things through under using while notes summary review".split()
)

# What a unit is, not what it is about: "book", "podcast". Such a tag never joins units into a
# theme nor names one: eight units tagged "book" are not one interest.
FORMAT_TAGS = frozenset(
    "article articles audiobook audiobooks blog blogs blogpost blog-post blog-posts book books clip clipping "
    "clippings course courses documentary documentaries ebook ebooks episode episodes essay essays highlights "
    "interview interviews kindle lecture lectures link links newsletter newsletters paper papers podcast podcasts "
    "post posts reading slides talk talks thread threads transcript transcripts tutorial tutorials video videos "
    "webinar webinars web-clip webclip youtube".split()
)
