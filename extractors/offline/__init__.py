"""Rules read the notes, no model: the offline extractor (`offline`) and what it knows — first-person patterns,
whether an item stands alone, quotations and words attributed to someone else, a fact told to `remember`."""
