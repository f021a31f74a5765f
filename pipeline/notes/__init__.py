"""A note turned into text (docs/spec.md §1): its markup read, its fields and dates, whose words it holds,
other tools' layouts, Logseq's outlines, Hylo's daily files, and reading many notes in parallel."""
