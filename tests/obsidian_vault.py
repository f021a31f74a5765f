"""A small vault laid out as Obsidian users lay them out, written into a test's folder.

`Daily/` holds daily notes (named by date, some with a `created` in each format people
write), `Notes/` loose notes (no date of their own), `_knowledge/` units whose
`source_notes` are wiki links, `Templates/` a Templater template, `.obsidian/` the app's
settings. The notes carry the markup the model once copied into memory: wiki links and
aliases, embeds, emphasis, inline code, links, tags, footnotes, HTML and Obsidian comments,
code blocks and a mermaid diagram, tasks done and open. English and Chinese.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from vault_helpers import set_mtime

TODAY = dt.date(2026, 11, 30)
SHORTS = ["Daily", "_shorts"]  # the daily notes are the author's own words

# path → (text, mtime). Frontmatter is written as people write it (quoted or not), not dumped.
NOTES: dict[str, tuple[str, dt.date]] = {
    ".obsidian/daily-notes.json": ('{"folder": "Daily", "format": "YYYY-MM-DD"}', TODAY),
    ".obsidian/app.json": ("{}", TODAY),
    "Daily/2026-11-01.md": ("""---
created: 2026-11-01
tags: [daily]
---
# Sunday

Loves [[Kyoto]] and I love [[Kyoto Trip|the old capital]].
I love **matcha** lattes. I enjoy *slow* mornings with `uv` scripts.
See [the plan](https://example.com/plan) and https://example.org/raw for details.
#journal #mood/good

<!-- Loves hidden comments
that span lines -->
%% I love secret things %%

```mermaid
graph TD
  A[I feel anxious] --> B[I love queues]
```

- [x] I want to finish the tax return
- [ ] I want to run a marathon next spring
""", dt.date(2026, 11, 1)),
    "Daily/2026-11-10.md": ("""---
created: "[[2026-11-10]]"
---
I'm so tired after the long week.
> I love what the speaker said about cities
![[whiteboard.png]]
A claim of mine[^1].

[^1]: I enjoy footnotes.
""", dt.date(2026, 11, 10)),
    "Daily/2026-11-15.md": ("""---
date: Nov 15, 2026
---
```python
# I love Python comments
print("I feel great")
```
I love ==long== walks by the river.
""", TODAY),  # edited today: its written date wins over the mtime
    "Daily/2026-11-20.md": ("""---
created: <% tp.date.now("YYYY-MM-DD") %>
---
I love rainy afternoons.
""", TODAY),  # a Templater placeholder never replaced: dated by its name, named undated
    "Daily/2026-11-22.md": ("""---
created: 2026/11/22
---
我喜欢在京都喝抹茶。今天很开心。
I love tea from [[京都|Kyoto]].
""", dt.date(2026, 11, 22)),
    "Daily/2026-11-25.md": ("""---
created: 25 November 2026
---
<div>I love <b>html</b> islands<!-- not this --></div>

%%
I love a block comment
%%
I enjoy quiet evenings.
""", dt.date(2026, 11, 25)),
    "Notes/Kyoto.md": ("""---
created: 01.05.2019
---
I love old temples.
""", dt.date(2026, 11, 28)),  # an unreadable date and no name date: dated by mtime, named undated
    "Notes/Copied old note.md": ("""---
created: May 1, 2019
---
I love 2019 things.
""", TODAY),  # copied today, written in 2019: not current
    "Notes/Kyoto Trip.md": ("Plans for the old capital.\n", dt.date(2026, 11, 2)),
    "Templates/Daily.md": ("""---
created: <% tp.date.now() %>
---
# <% tp.file.title %>
""", TODAY),
    "_knowledge/tea-notes.md": ("""---
title: Tea notes
tags: [tea]
source_notes:
  - "[[2026-11-01]]"
  - "[[Daily/2026-11-22|tea day]]"
created: 2026-11-23
---
I love sencha in the afternoon.
""", dt.date(2026, 11, 23)),
}


def obsidian_vault(root: Path) -> Path:
    """Write the vault into `root` (files' mtimes set as the notes say) and return it."""
    for rel, (text, mtime) in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        set_mtime(path, mtime)
    return root
